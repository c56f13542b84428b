//! fmt (in progress).
