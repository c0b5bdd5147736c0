"""Output formats: text, JSON and the CI formats; report files; progress."""
