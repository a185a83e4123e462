//! Passkeys over HTTP (docs/PROTOCOL.md, "Passkeys"), on SQLite, or on PostgreSQL under
//! scripts/with-postgres, against a small software authenticator written here (a P-256
//! key, "none" attestation, the browser's JSON as a browser sends it): sign-up and
//! sign-in, a passkey added to a password account, and each way a ceremony is refused —
//! a challenge answered twice, an expired one, an answer made for another origin, a
//! credential of no account or signed by another key, a request from another site or
//! from a page at an address passkeys are not set up for — throttled failures, and a
//! passkey-only account deleted with its passkey.

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use common::{Answer, Server, session_cookie, sql};
use mill_server::ManualClock;
use openssl::bn::BigNumContext;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::sign::Signer;
use serde_json::{Value, json};
use sha2::Digest;

/// A POST with extra headers.
async fn call(addr: SocketAddr, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    common::call(addr, "POST", path, headers, body).await
}

/// A CBOR byte string's or text string's head.
fn cbor_head(major: u8, len: usize) -> Vec<u8> {
    match len {
        0..=23 => vec![major << 5 | len as u8],
        24..=255 => vec![major << 5 | 24, len as u8],
        _ => {
            let mut v = vec![major << 5 | 25];
            v.extend_from_slice(&(len as u16).to_be_bytes());
            v
        }
    }
}

fn cbor_text(s: &str) -> Vec<u8> {
    let mut v = cbor_head(3, s.len());
    v.extend_from_slice(s.as_bytes());
    v
}

fn cbor_bytes(b: &[u8]) -> Vec<u8> {
    let mut v = cbor_head(2, b.len());
    v.extend_from_slice(b);
    v
}

/// A passkey authenticator in software: one P-256 key, one credential.
struct Authenticator {
    key: PKey<Private>,
    credential_id: Vec<u8>,
    user_handle: Vec<u8>,
    counter: u32,
}

impl Authenticator {
    fn new() -> Authenticator {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
        let ec = EcKey::generate(&group).unwrap();
        Authenticator {
            key: PKey::from_ec_key(ec).unwrap(),
            credential_id: (0..16).map(|_| rand_byte()).collect(),
            user_handle: Vec::new(),
            counter: 0,
        }
    }

    fn cose_key(&self) -> Vec<u8> {
        let ec = self.key.ec_key().unwrap();
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
        let mut ctx = BigNumContext::new().unwrap();
        let mut x = openssl::bn::BigNum::new().unwrap();
        let mut y = openssl::bn::BigNum::new().unwrap();
        ec.public_key()
            .affine_coordinates(&group, &mut x, &mut y, &mut ctx)
            .unwrap();
        // {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}
        let mut v = vec![0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21];
        v.extend(cbor_bytes(&x.to_vec_padded(32).unwrap()));
        v.push(0x22);
        v.extend(cbor_bytes(&y.to_vec_padded(32).unwrap()));
        v
    }

    fn client_data(kind: &str, options: &Value, origin: &str) -> Vec<u8> {
        let challenge = options["publicKey"]["challenge"].as_str().unwrap();
        json!({ "type": kind, "challenge": challenge, "origin": origin, "crossOrigin": false })
            .to_string()
            .into_bytes()
    }

    /// The browser's answer to `navigator.credentials.create()` with these options.
    fn create(&mut self, options: &Value, origin: &str) -> Value {
        let public = &options["publicKey"];
        let rp_id = public["rp"]["id"].as_str().unwrap();
        self.user_handle = B64.decode(public["user"]["id"].as_str().unwrap()).unwrap();
        let mut auth_data = sha2::Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(0x45); // user present, user verified, attested credential data
        auth_data.extend_from_slice(&self.counter.to_be_bytes());
        auth_data.extend_from_slice(&[0; 16]); // AAGUID
        auth_data.extend_from_slice(&(self.credential_id.len() as u16).to_be_bytes());
        auth_data.extend_from_slice(&self.credential_id);
        auth_data.extend(self.cose_key());
        let mut attestation = vec![0xa3];
        attestation.extend(cbor_text("fmt"));
        attestation.extend(cbor_text("none"));
        attestation.extend(cbor_text("attStmt"));
        attestation.push(0xa0);
        attestation.extend(cbor_text("authData"));
        attestation.extend(cbor_bytes(&auth_data));
        let id = B64.encode(&self.credential_id);
        json!({
            "id": id, "rawId": id, "type": "public-key", "extensions": {},
            "response": {
                "attestationObject": B64.encode(attestation),
                "clientDataJSON": B64.encode(Self::client_data("webauthn.create", options, origin)),
            },
        })
    }

    /// The browser's answer to `navigator.credentials.get()` with these options.
    fn get(&mut self, options: &Value, origin: &str, rp_id: &str) -> Value {
        self.counter += 1;
        let mut auth_data = sha2::Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(0x05); // user present, user verified
        auth_data.extend_from_slice(&self.counter.to_be_bytes());
        let client_data = Self::client_data("webauthn.get", options, origin);
        let mut signer = Signer::new(MessageDigest::sha256(), &self.key).unwrap();
        signer.update(&auth_data).unwrap();
        signer.update(&sha2::Sha256::digest(&client_data)).unwrap();
        let signature = signer.sign_to_vec().unwrap();
        let id = B64.encode(&self.credential_id);
        json!({
            "id": id, "rawId": id, "type": "public-key", "extensions": {},
            "response": {
                "authenticatorData": B64.encode(auth_data),
                "clientDataJSON": B64.encode(client_data),
                "signature": B64.encode(signature),
                "userHandle": B64.encode(&self.user_handle),
            },
        })
    }
}

fn rand_byte() -> u8 {
    let mut b = [0u8; 1];
    openssl::rand::rand_bytes(&mut b).unwrap();
    b[0]
}

struct Site {
    server: Server,
    db: PathBuf,
    clock: Arc<ManualClock>,
    /// The origin the pages are at: the default relying party is localhost, any port.
    origin: String,
    _dir: tempfile::TempDir,
}

async fn site() -> Site {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("passkeys.db");
    let clock = Arc::new(ManualClock::new());
    let c = clock.clone();
    let server = Server::start_with(&db, move |config| {
        config.max_conns_per_ip = 0;
        Server::with_clock(config, c);
    })
    .await;
    let origin = format!("http://localhost:{}", server.addr.port());
    Site {
        server,
        db,
        clock,
        origin,
        _dir: dir,
    }
}

impl Site {
    async fn call(&self, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        call(self.server.addr, path, headers, body).await
    }

    async fn start(&self, path: &str, headers: &[(&str, &str)], body: Value) -> (String, Value) {
        let a = self.call(path, headers, &body.to_string()).await;
        assert_eq!(a.status, 200, "{a:?}");
        assert_eq!(a.token, None);
        let ceremony = a.body["ceremony"].as_str().unwrap().to_string();
        assert_eq!(ceremony.len(), 64);
        (ceremony, a.body["options"].clone())
    }

    async fn finish(
        &self,
        path: &str,
        headers: &[(&str, &str)],
        ceremony: &str,
        credential: &Value,
    ) -> Answer {
        let body = json!({ "ceremony": ceremony, "credential": credential });
        self.call(path, headers, &body.to_string()).await
    }

    /// Signs up `name` with a new passkey; the session token.
    async fn sign_up(&self, name: &str, key: &mut Authenticator) -> String {
        let (ceremony, options) = self
            .start("/api/passkey/register/start", &[], json!({ "name": name }))
            .await;
        let credential = key.create(&options, &self.origin);
        let a = self
            .finish("/api/passkey/register/finish", &[], &ceremony, &credential)
            .await;
        assert_eq!(a.status, 201, "{a:?}");
        assert_eq!(a.body, json!({ "name": name }));
        a.token.expect("a session cookie")
    }

    /// A sign-in ceremony's token and options, and the answer `key` makes to it.
    async fn sign_in_answer(&self, key: &mut Authenticator, origin: &str) -> (String, Value) {
        let (ceremony, options) = self.start("/api/passkey/login/start", &[], json!({})).await;
        assert_eq!(options["publicKey"]["rpId"], "localhost");
        assert_eq!(options["publicKey"]["allowCredentials"], json!([]));
        let credential = key.get(&options, origin, "localhost");
        (ceremony, credential)
    }

    async fn me(&self, token: &str) -> Value {
        common::call_as(self.server.addr, "GET", "/api/me", Some(token), "")
            .await
            .body
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_up_and_sign_in_with_a_passkey() {
    let site = site().await;
    let mut key = Authenticator::new();
    let (ceremony, options) = site
        .start("/api/passkey/register/start", &[], json!({ "name": "Ann_Lee" }))
        .await;
    let public = &options["publicKey"];
    assert_eq!(public["rp"]["id"], "localhost");
    assert_eq!(public["user"]["name"], "Ann_Lee");
    assert_eq!(public["authenticatorSelection"]["residentKey"], "required");
    assert_eq!(public["authenticatorSelection"]["userVerification"], "required");
    let credential = key.create(&options, &site.origin);
    let a = site
        .finish("/api/passkey/register/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(a.status, 201, "{a:?}");
    let first = a.token.unwrap();
    assert_eq!(site.me(&first).await["name"], "Ann_Lee");
    // No password, one passkey, and no ceremony left over.
    assert_eq!(
        sql(
            &site.db,
            "SELECT count(*) FROM accounts WHERE password_hash IS NULL",
            &[]
        )
        .await,
        1
    );
    assert_eq!(sql(&site.db, "SELECT count(*) FROM passkeys", &[]).await, 1);
    assert_eq!(
        sql(&site.db, "SELECT count(*) FROM passkey_ceremonies", &[]).await,
        0
    );
    // The name is taken now, by passkey as by password.
    let a = site
        .call(
            "/api/passkey/register/start",
            &[],
            &json!({ "name": "ann_lee" }).to_string(),
        )
        .await;
    assert_eq!((a.status, a.body["code"].as_str()), (409, Some("name-taken")));

    // Sign-in from the session of the sign-up: a new session, the old one ended.
    let (ceremony, credential) = site.sign_in_answer(&mut key, &site.origin.clone()).await;
    let (n, v) = session_cookie(&first);
    let a = site
        .finish("/api/passkey/login/finish", &[(n, &v)], &ceremony, &credential)
        .await;
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(a.body, json!({ "name": "Ann_Lee" }));
    let second = a.token.unwrap();
    assert_ne!(second, first);
    assert_eq!(site.me(&second).await["name"], "Ann_Lee");
    assert_eq!(site.me(&first).await["code"], "sign-in-required");
    // The counter the authenticator reported is kept.
    let stored = sql(
        &site.db,
        "SELECT count(*) FROM passkeys WHERE used_at IS NOT NULL",
        &[],
    )
    .await;
    assert_eq!(stored, 1);
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_challenge_is_answered_once() {
    let site = site().await;
    let mut key = Authenticator::new();
    // A registration finished once cannot be finished again.
    let (ceremony, registration) = site
        .start("/api/passkey/register/start", &[], json!({ "name": "bob" }))
        .await;
    let credential = key.create(&registration, &site.origin);
    let a = site
        .finish("/api/passkey/register/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(a.status, 201);
    let a = site
        .finish("/api/passkey/register/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (400, Some("ceremony-expired")),
        "{a:?}"
    );
    // Nor a sign-in, even with a fresh signature over the same challenge.
    let (ceremony, options) = site.start("/api/passkey/login/start", &[], json!({})).await;
    let credential = key.get(&options, &site.origin, "localhost");
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(a.status, 200, "{a:?}");
    let again = key.get(&options, &site.origin, "localhost");
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &again)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (400, Some("ceremony-expired")),
        "{a:?}"
    );
    assert_eq!(a.token, None);
    // A refused answer uses the challenge up too.
    let (ceremony, options) = site.start("/api/passkey/login/start", &[], json!({})).await;
    let wrong = key.get(&options, "http://localhost.evil.example", "localhost");
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &wrong)
        .await;
    assert_eq!(a.status, 401, "{a:?}");
    let right = key.get(&options, &site.origin, "localhost");
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &right)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (400, Some("ceremony-expired")),
        "{a:?}"
    );
    // A sign-in ceremony's token does not finish a registration.
    let (ceremony, _) = site.start("/api/passkey/login/start", &[], json!({})).await;
    let other = Authenticator::new().create(&registration, &site.origin);
    let a = site
        .finish("/api/passkey/register/finish", &[], &ceremony, &other)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (400, Some("ceremony-expired")),
        "{a:?}"
    );
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_challenge_is_refused() {
    let site = site().await;
    let mut key = Authenticator::new();
    let (ceremony, options) = site
        .start("/api/passkey/register/start", &[], json!({ "name": "carol" }))
        .await;
    assert_eq!(options["publicKey"]["timeout"], 300_000);
    site.clock.advance(Duration::from_secs(5 * 60));
    let credential = key.create(&options, &site.origin);
    let a = site
        .finish("/api/passkey/register/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (400, Some("ceremony-expired")),
        "{a:?}"
    );
    assert_eq!(sql(&site.db, "SELECT count(*) FROM accounts", &[]).await, 0);
    // Just in time is in time.
    site.sign_up("carol", &mut key).await;
    let (ceremony, credential) = site.sign_in_answer(&mut key, &site.origin.clone()).await;
    site.clock
        .advance(Duration::from_secs(5 * 60) - Duration::from_millis(1));
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(a.status, 200, "{a:?}");
    let (ceremony, credential) = site.sign_in_answer(&mut key, &site.origin.clone()).await;
    site.clock.advance(Duration::from_secs(5 * 60));
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (400, Some("ceremony-expired")),
        "{a:?}"
    );
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_origin_is_refused() {
    let site = site().await;
    let mut key = Authenticator::new();
    // An answer made on another site's page (its client data names that origin).
    let (ceremony, options) = site
        .start("/api/passkey/register/start", &[], json!({ "name": "dave" }))
        .await;
    let credential = key.create(&options, "https://evil.example");
    let a = site
        .finish("/api/passkey/register/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("passkey-refused")),
        "{a:?}"
    );
    assert_eq!(sql(&site.db, "SELECT count(*) FROM accounts", &[]).await, 0);
    site.sign_up("dave", &mut key).await;
    let (ceremony, credential) = site.sign_in_answer(&mut key, "https://evil.example").await;
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("passkey-refused")),
        "{a:?}"
    );
    assert_eq!(a.token, None);
    // A request another site's page makes the browser send.
    for path in [
        "/api/passkey/register/start",
        "/api/passkey/register/finish",
        "/api/passkey/login/start",
        "/api/passkey/login/finish",
    ] {
        let a = site.call(path, &[("Origin", "https://evil.example")], "{}").await;
        assert_eq!(
            (a.status, a.body["code"].as_str()),
            (403, Some("cross-site")),
            "{path}: {a:?}"
        );
    }
    // A page of this server at an address that is not the relying party's.
    let here = format!("http://{}", site.server.addr);
    let a = site
        .call("/api/passkey/login/start", &[("Origin", &here)], "{}")
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (400, Some("passkey-unavailable")),
        "{a:?}"
    );
    assert!(
        a.body["message"]
            .as_str()
            .unwrap()
            .contains("http://localhost:PORT")
    );
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_credential_is_refused() {
    let site = site().await;
    let mut ann = Authenticator::new();
    site.sign_up("ann", &mut ann).await;
    // A passkey no account has (made for this site, never registered).
    let mut stranger = Authenticator::new();
    stranger.user_handle = ann.user_handle.clone();
    let (ceremony, credential) = site.sign_in_answer(&mut stranger, &site.origin.clone()).await;
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("passkey-refused")),
        "{a:?}"
    );
    // Ann's credential id, signed by another key.
    let mut forger = Authenticator::new();
    forger.credential_id = ann.credential_id.clone();
    forger.user_handle = ann.user_handle.clone();
    forger.counter = 100;
    let (ceremony, credential) = site.sign_in_answer(&mut forger, &site.origin.clone()).await;
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("passkey-refused")),
        "{a:?}"
    );
    // Ann's passkey naming another user handle.
    let mut renamed = Authenticator::new();
    std::mem::swap(&mut renamed.key, &mut ann.key);
    renamed.credential_id = ann.credential_id.clone();
    renamed.user_handle = vec![7; 16];
    renamed.counter = 200;
    let (ceremony, credential) = site.sign_in_answer(&mut renamed, &site.origin.clone()).await;
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("passkey-refused")),
        "{a:?}"
    );
    // And the passkey itself still works.
    renamed.user_handle = ann.user_handle.clone();
    let (ceremony, credential) = site.sign_in_answer(&mut renamed, &site.origin.clone()).await;
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!((a.status, &a.body), (200, &json!({ "name": "ann" })), "{a:?}");
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_sign_ins_are_throttled() {
    let site = site().await;
    let mut key = Authenticator::new();
    site.sign_up("erin", &mut key).await;
    let mut forger = Authenticator::new();
    forger.credential_id = key.credential_id.clone();
    forger.user_handle = key.user_handle.clone();
    for _ in 0..5 {
        let (ceremony, credential) = site.sign_in_answer(&mut forger, &site.origin.clone()).await;
        let a = site
            .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
            .await;
        assert_eq!(a.status, 401, "{a:?}");
    }
    // The credential is held back now, even with the right key.
    let (ceremony, credential) = site.sign_in_answer(&mut key, &site.origin.clone()).await;
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (429, Some("throttled")),
        "{a:?}"
    );
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_passkey_is_added_to_a_password_account() {
    let site = site().await;
    // Adding needs a signed-in session.
    let a = site.call("/api/passkey/register/start", &[], "{}").await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("sign-in-required")),
        "{a:?}"
    );
    let a = site
        .call(
            "/api/account",
            &[],
            &json!({ "name": "Fay", "password": "correct horse battery" }).to_string(),
        )
        .await;
    assert_eq!(a.status, 201, "{a:?}");
    let session = a.token.unwrap();
    let (n, v) = session_cookie(&session);
    let mut key = Authenticator::new();
    let (ceremony, options) = site
        .start("/api/passkey/register/start", &[(n, &v)], json!({}))
        .await;
    assert_eq!(options["publicKey"]["user"]["name"], "Fay");
    let credential = key.create(&options, &site.origin);
    // Finished without the session: refused.
    let a = site
        .finish("/api/passkey/register/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("sign-in-required")),
        "{a:?}"
    );
    let (ceremony, options) = site
        .start("/api/passkey/register/start", &[(n, &v)], json!({}))
        .await;
    let credential = key.create(&options, &site.origin);
    let a = site
        .finish("/api/passkey/register/finish", &[(n, &v)], &ceremony, &credential)
        .await;
    assert_eq!((a.status, &a.body), (200, &json!({ "name": "Fay" })), "{a:?}");
    assert_eq!(a.token, None);
    // A second passkey is made for the same user handle, and the first is excluded.
    let (_, options) = site
        .start("/api/passkey/register/start", &[(n, &v)], json!({}))
        .await;
    assert_eq!(
        B64.decode(options["publicKey"]["user"]["id"].as_str().unwrap())
            .unwrap(),
        key.user_handle
    );
    assert_eq!(
        options["publicKey"]["excludeCredentials"][0]["id"],
        B64.encode(&key.credential_id)
    );
    // The passkey signs Fay in; the password still does too.
    let (ceremony, credential) = site.sign_in_answer(&mut key, &site.origin.clone()).await;
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!((a.status, &a.body), (200, &json!({ "name": "Fay" })), "{a:?}");
    let a = site
        .call(
            "/api/session",
            &[],
            &json!({ "name": "fay", "password": "correct horse battery" }).to_string(),
        )
        .await;
    assert_eq!(a.status, 200, "{a:?}");
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_are_coded_and_change_nothing() {
    let site = site().await;
    for (path, body, code) in [
        ("/api/passkey/register/start", r#"{"name": "x"}"#, "bad-name"),
        (
            "/api/passkey/register/start",
            r#"{"name": "deleted"}"#,
            "bad-name",
        ),
        ("/api/passkey/register/start", "[1]", "malformed"),
        ("/api/passkey/register/finish", "{}", "malformed"),
        ("/api/passkey/login/finish", r#"{"ceremony": "x"}"#, "malformed"),
    ] {
        let a = site.call(path, &[], body).await;
        assert_eq!(
            (a.status, a.body["code"].as_str()),
            (400, Some(code)),
            "{path} {body}: {a:?}"
        );
    }
    let mut key = Authenticator::new();
    let (_, options) = site
        .start("/api/passkey/register/start", &[], json!({ "name": "gus" }))
        .await;
    let credential = key.create(&options, &site.origin);
    let a = site
        .finish("/api/passkey/register/finish", &[], &"0".repeat(64), &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (400, Some("ceremony-expired")),
        "{a:?}"
    );
    assert_eq!(sql(&site.db, "SELECT count(*) FROM accounts", &[]).await, 0);
    site.server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_passkey_account_is_deleted_with_its_passkey() {
    let site = site().await;
    let mut hana = Authenticator::new();
    let session = site.sign_up("hana", &mut hana).await;
    let mut ivan = Authenticator::new();
    site.sign_up("ivan", &mut ivan).await;
    let (n, v) = session_cookie(&session);
    let delete = |body: String| {
        let v = v.clone();
        let addr = site.server.addr;
        async move { common::call(addr, "DELETE", "/api/account", &[(n, &v)], &body).await }
    };
    // No password to give: any password is wrong.
    let a = delete(json!({ "password": "correct horse battery" }).to_string()).await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("bad-credentials")),
        "{a:?}"
    );
    // Another account's passkey does not confirm it.
    let (ceremony, credential) = site.sign_in_answer(&mut ivan, &site.origin.clone()).await;
    let a = delete(json!({ "ceremony": ceremony, "credential": credential }).to_string()).await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("passkey-refused")),
        "{a:?}"
    );
    // Nor a used ceremony.
    let a = delete(json!({ "ceremony": ceremony, "credential": credential }).to_string()).await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (400, Some("ceremony-expired")),
        "{a:?}"
    );
    assert_eq!(sql(&site.db, "SELECT count(*) FROM accounts", &[]).await, 2);
    // Its own does.
    let (ceremony, credential) = site.sign_in_answer(&mut hana, &site.origin.clone()).await;
    let a = delete(json!({ "ceremony": ceremony, "credential": credential }).to_string()).await;
    assert_eq!(a.status, 204, "{a:?}");
    assert_eq!(sql(&site.db, "SELECT count(*) FROM accounts", &[]).await, 1);
    assert_eq!(sql(&site.db, "SELECT count(*) FROM passkeys", &[]).await, 1);
    assert_eq!(site.me(&session).await["code"], "sign-in-required");
    // Its passkey signs nobody in, and the name is free again.
    let (ceremony, credential) = site.sign_in_answer(&mut hana, &site.origin.clone()).await;
    let a = site
        .finish("/api/passkey/login/finish", &[], &ceremony, &credential)
        .await;
    assert_eq!(
        (a.status, a.body["code"].as_str()),
        (401, Some("passkey-refused")),
        "{a:?}"
    );
    site.sign_up("hana", &mut Authenticator::new()).await;
    site.server.stop().await;
}
