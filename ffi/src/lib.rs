//! C ABI of kuatia. The full surface arrives with its own issue; this crate stays a thin shell over `kuatia-core`.

/// Returns the library version as a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn kuatia_version() -> *const std::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
