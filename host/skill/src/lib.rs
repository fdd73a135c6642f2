//! Skills (in progress).
