"""What keeps a term's data: a person's export, erasure, and the retention of archived courses."""
