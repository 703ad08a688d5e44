"""The store: teeth's SQLite database, its schema and the domain types it hands out."""
