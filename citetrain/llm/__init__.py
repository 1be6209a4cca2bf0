"""OpenAI-compatible chat client with a persistent SQLite answer cache."""
