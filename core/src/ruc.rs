//! ruc (in progress).
