//! What the peer-conformance suites and benchmarks reach below the facade: the pieces of
//! each engine that the peers' own test tables exercise one case at a time (KubeMod's
//! select language and patch store, Gatekeeper's location paths, mutators, images and
//! expansion), and the module runtime the module benchmark times. Hidden from the docs and
//! not a stable API: everything else stays crate-private, so the lints find dead code.

/// KubeMod's rule compiler, patch store and select language.
pub mod kubemod {
    pub mod rule {
        pub use crate::engines::kubemod::rule::compile;
    }
    pub mod store {
        pub use crate::engines::kubemod::store::{Request, Store};
    }
    pub mod matching {
        pub use crate::engines::kubemod::matching::{is_match, MatchFor, MatchItem};
    }
    pub mod select {
        pub use crate::engines::kubemod::select::{
            compile_with, key_parts, path_from_key_parts, Dialect, Val,
        };
    }
}

/// Gatekeeper's location paths, mutators, image parsing and expansion.
pub mod gatekeeper {
    pub use kadmit_match::{apply_to, matching, wildcard, Gvk};
    pub mod expansion {
        pub use crate::engines::gatekeeper::expansion::{
            expand, expand_resource, NoMutation, ResultantMutator, Template, Templates,
        };
    }
    pub mod image {
        pub use crate::engines::gatekeeper::image::{parse, validate_parts};
    }
    pub mod mutators {
        pub use crate::engines::gatekeeper::mutators::Mutator;
    }
    pub mod system {
        pub use crate::engines::gatekeeper::system::System;
    }
    pub mod path {
        pub use crate::engines::gatekeeper::path::{parse, ErrorKind, KeyValue, Node, Path};
        pub mod tester {
            pub use crate::engines::gatekeeper::path::tester::Tester;
        }
    }
}

/// The WebAssembly runtime the module benchmark times.
pub mod module {
    pub mod limits {
        pub use crate::engines::module::limits::Limits;
    }
    pub mod runtime {
        pub use crate::engines::module::runtime::{engine, WasmModule};
    }
    pub mod capabilities {
        pub use crate::engines::module::capabilities::Host;
    }
}

/// Reading a stream the way kubectl does, and the resources it gives.
pub mod core {
    pub mod decode {
        pub use crate::core::decode::decode_all;
    }
    pub mod resource {
        pub use crate::core::resource::{Origin, Resource};
    }
}

/// The output encoder, for round trips through the writer.
pub mod io {
    pub mod encode {
        pub use crate::io::encode::{Encoder, Format};
    }
}
