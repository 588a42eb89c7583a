"""Persisted sessions: one JSONL file per session, appended as messages enter history."""
