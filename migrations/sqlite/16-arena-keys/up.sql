-- A player's arena socket asks every second whether its ticket (the seat key's hash) has
-- been paired. Without these the question read every game of the arena (the only index
-- was by arena and start), a cost growing with the arena: 1,000 players an hour into an
-- arena made a million row reads a second.
CREATE INDEX arena_games_light_key ON arena_games (light_key_hash);
CREATE INDEX arena_games_dark_key ON arena_games (dark_key_hash);
