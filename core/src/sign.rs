//! sign (in progress).
