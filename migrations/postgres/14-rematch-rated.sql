-- As SQLite's 17-rematch-rated: the rated rooms made before 12-rematch that are no
-- arena's game were made by rated pairing, so they are paired.
UPDATE rooms SET paired = TRUE
WHERE id IN (SELECT room_id FROM rated_rooms)
  AND id NOT IN (SELECT room_id FROM arena_games);
