//! ExpansionTemplates (`pkg/expansion`): a generator such as a Deployment expands into the
//! resources it would create (a Pod), each mutated as `Generated` and expanded further.

mod db;
mod resource;
mod system;
mod template;

pub use db::Templates;
pub use resource::expand_resource;
pub use system::{
    expand, NoMutation, Resultant, ResultantMutator, MAX_RECURSION_DEPTH,
    MAX_RESULTANTS_PER_RESOURCE, MAX_RESULTANTS_TOTAL,
};
pub use template::{gvk_string, GvkSet, Template};
