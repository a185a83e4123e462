-- A seat opened on one instance replaces the socket that held it on any other, as a
-- second tab does on one instance (close code 4000). Each time an instance publishes a
-- socket on a seat, its presence row takes a new number from one sequence: the newest
-- number holds the seat, and an instance whose socket's number is older replaces that
-- socket and withdraws its row (see `Room::claims` in rooms.rs).
CREATE SEQUENCE presence_claim;
ALTER TABLE presence ADD COLUMN claim BIGINT NOT NULL DEFAULT nextval('presence_claim');

-- A new number on an existing row (a second socket on the same instance) is news too.
CREATE TRIGGER presence_claim_notify AFTER UPDATE OF claim ON presence
    FOR EACH ROW EXECUTE FUNCTION mill_notify_room();
