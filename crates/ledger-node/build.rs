//! Link settings for the `.node` addon (napi-build adds the per-platform flags).

fn main() {
    napi_build::setup();
}
