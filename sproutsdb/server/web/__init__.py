"""The web page of `sproutsdb web` (package data: HTML, JavaScript, CSS; no build step)."""
