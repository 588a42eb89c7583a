"""The user's permission rules: parse them, see what a command runs, decide a call."""
