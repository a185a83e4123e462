-- Rooms made before 15-rematch have `paired` unset, so their rounds could not be
-- rematched. The rated ones that are no arena's game were made by rated pairing (invite
-- rooms are casual; an arena pairs its players again by itself): they are paired. A
-- casual room made by pairing cannot be told from an invite room (an answered seek leaves
-- no row) and stays unpaired. Every room made since is marked by its maker, so running
-- this again changes nothing.
UPDATE rooms SET paired = 1
WHERE id IN (SELECT room_id FROM rated_rooms)
  AND id NOT IN (SELECT room_id FROM arena_games);
