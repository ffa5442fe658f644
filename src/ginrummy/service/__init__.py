"""Use cases of the web platform: rooms, live matches, ratings."""
