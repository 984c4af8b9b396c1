"""What keeps a term's data: backups and their restore (`backup`), a person's export and erasure,
and the retention of archived courses."""
