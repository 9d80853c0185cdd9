//! ExpansionTemplates (`pkg/expansion`): a generator such as a Deployment expands into the
//! resources it would create (a Pod), each mutated as `Generated` and expanded further.

mod db;
mod resource;
mod system;
mod template;

pub use db::Templates;
pub use resource::expand_resource;
pub use system::{expand, NoMutation, ResultantMutator};
pub use template::Template;
