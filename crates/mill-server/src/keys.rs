//! Room ids and seat keys: random, and only hashes of keys are kept.

use rand::Rng;
use sha2::{Digest, Sha256};

const ROOM_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
/// Length of a room id.
pub const ROOM_ID_LEN: usize = 12;

/// A fresh room id, 12 characters of `a-z0-9` (62 bits).
pub fn new_room_id() -> String {
    let mut rng = rand::rng();
    (0..ROOM_ID_LEN)
        .map(|_| ROOM_ALPHABET[rng.random_range(0..ROOM_ALPHABET.len())] as char)
        .collect()
}

/// Whether `id` has the shape of a room id (checked before any lookup).
pub fn is_room_id(id: &str) -> bool {
    id.len() == ROOM_ID_LEN && id.bytes().all(|b| ROOM_ALPHABET.contains(&b))
}

/// The id of the room a rematch of round `round` of room `room` is played in: computed,
/// not drawn, so that every instance and every replay names the same room, and the
/// rooms' primary key lets the database create it once whoever completes the rematch.
/// (Room ids are not secrets: anyone watching the old room sees the new one's id.)
pub fn rematch_room_id(room: &str, round: u32) -> String {
    let digest = Sha256::digest(format!("mill rematch {room} {round}").as_bytes());
    digest
        .iter()
        .take(ROOM_ID_LEN)
        .map(|b| ROOM_ALPHABET[usize::from(*b) % ROOM_ALPHABET.len()] as char)
        .collect()
}

/// A fresh seat key: 32 random bytes as 64 lowercase hex digits.
pub fn new_seat_key() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of a key, which is what the database and the room keep.
pub fn hash_key(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_keys_have_their_shape_and_differ() {
        let id = new_room_id();
        assert!(is_room_id(&id), "{id}");
        assert_ne!(new_room_id(), id);
        assert!(!is_room_id("ABCDEFGHIJKL"));
        assert!(!is_room_id("short"));
        let key = new_seat_key();
        assert_eq!(key.len(), 64);
        assert!(key.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(hash_key(&key), hash_key(&new_seat_key()));
        assert_eq!(hash_key(&key), hash_key(&key.clone()));
        let rematch = rematch_room_id(&id, 1);
        assert!(is_room_id(&rematch), "{rematch}");
        assert_eq!(
            rematch,
            rematch_room_id(&id, 1),
            "every instance names the same room"
        );
        assert_ne!(rematch, rematch_room_id(&id, 2));
        assert_ne!(rematch, rematch_room_id(&new_room_id(), 1));
    }
}
