// The migrations are embedded with include_dir; rebuild when one changes.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
