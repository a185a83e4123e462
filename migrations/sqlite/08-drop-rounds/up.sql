-- The rounds table (01) has had no reader since events became an append-only log (02):
-- a room's rounds are the rounds of its events, replayed through mill-core. Keeping it
-- cost one row written with every room and every new round; PostgreSQL never had it.
DROP TABLE rounds;
