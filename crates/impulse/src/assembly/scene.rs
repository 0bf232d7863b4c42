//! Assembly scene files.
