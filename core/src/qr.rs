//! qr (in progress).
