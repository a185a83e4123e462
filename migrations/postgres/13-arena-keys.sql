-- As SQLite's 16-arena-keys: a ticket's game found by its key hash, not by reading every
-- game of the arena.
CREATE INDEX arena_games_light_key ON arena_games (light_key_hash);
CREATE INDEX arena_games_dark_key ON arena_games (dark_key_hash);
