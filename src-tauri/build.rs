//! Tauri's build step: reads tauri.conf.json (beside the top-level Cargo.toml) and prepares the context.

fn main() {
    tauri_build::build();
}
