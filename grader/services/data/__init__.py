"""What keeps a term's data: backups and their restore (`backup`)."""
