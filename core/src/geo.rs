//! geo (in progress).
