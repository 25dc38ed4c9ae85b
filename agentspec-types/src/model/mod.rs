//! The component model: references and secrets, what every component has, walks, plugin
//! components as values, and the encoder's settings. It is plain data; reading it from a
//! document is the codec's job.

pub mod component;
pub mod encoder;
pub mod plugin;
pub mod refs;
pub mod walk;
