//! What the path walk changed, recorded as it changes it: the JSON Pointers for the change
//! record, and an undo log that tells whether a round of the convergence loop changed the
//! object, without a copy of the object from before every mutator or every round.

use super::values;
use kadmit_jsonpatch::{diff, pointer};
use serde_json::{Map, Value};

/// What a setter did to the field it was given.
pub enum Written {
    /// Nothing: the field already held exactly what the setter would write.
    Nothing,
    /// The field was set; it held `old` before (`None`: it was missing).
    Replaced(Option<Value>),
    /// The list in the field grew at its end; it had `len` elements before.
    Appended(usize),
}

/// The changes of one mutator (`paths`) and of the current round (the undo log), and the
/// pointer of the field the walk records a change at.
#[derive(Default)]
pub struct Edits {
    /// The deepest changed fields, as `diff::changed_paths` reports them: a field the walk
    /// created, or a list whose length changed, is reported whole.
    paths: Vec<String>,
    undo: Vec<Undo>,
    pub(super) at: String,
    /// The walk's scratch space: which element it is in at each list node of the path.
    pub(super) indices: Vec<usize>,
}

/// One change of the round: how to take it back, and whether it changed the value at `at`
/// as `values::equal` sees it (`80` to `80.0` does not).
struct Undo {
    at: String,
    revert: Revert,
    differs: bool,
}

enum Revert {
    /// Put back what the map field or list element held (`None`: remove it).
    Put(Option<Value>),
    /// Cut the list back to this many elements.
    Truncate(usize),
}

/// How many paths and undo entries there were, to drop what a created subtree recorded.
#[derive(Clone, Copy)]
pub(super) struct Mark {
    paths: usize,
    undo: usize,
}

impl Edits {
    /// The paths the last mutator changed, leaving none.
    pub fn take_paths(&mut self) -> std::vec::Drain<'_, String> {
        self.paths.drain(..)
    }

    /// Whether `object` differs (`values::equal`) from the object at the start of the round,
    /// so changes that cancel out leave it unchanged; then forgets the round's changes.
    pub fn round_changed(&mut self, object: &Value) -> bool {
        let changed = match self.decided() {
            Some(changed) => changed,
            None => self.differs_from_start(object),
        };
        self.undo.clear();
        changed
    }

    /// A change no other change of the round overlaps (at, above or below its pointer) took
    /// the value there from what the round started with to what it ends with. One that
    /// differs decides that the round changed the object; if all are alone and none
    /// differs, it did not. Otherwise it takes a comparison.
    fn decided(&self) -> Option<bool> {
        let alone = |undo: &Undo| {
            let overlapping = self
                .undo
                .iter()
                .filter(|other| overlap(&undo.at, &other.at));
            overlapping.count() == 1
        };
        if self.undo.iter().any(|undo| undo.differs && alone(undo)) {
            return Some(true);
        }
        self.undo.iter().all(alone).then_some(false)
    }

    /// The comparison: the object with the round's changes undone against the object.
    fn differs_from_start(&mut self, object: &Value) -> bool {
        let mut start = object.clone();
        for undo in self.undo.drain(..).rev() {
            undo.revert(&mut start);
        }
        !values::equal(&start, object)
    }

    pub(super) fn mark(&self) -> Mark {
        Mark {
            paths: self.paths.len(),
            undo: self.undo.len(),
        }
    }

    /// The field at `at` now holds `new`; `old` is what it held.
    pub(super) fn replaced(&mut self, old: Option<Value>, new: &Value) {
        let differs = match &old {
            None => {
                self.paths.push(self.at.clone());
                true
            }
            Some(old) => {
                diff::changed_paths(&mut self.at, old, new, &mut self.paths);
                !values::equal(old, new)
            }
        };
        self.log(Revert::Put(old), differs);
    }

    /// The field at `at` was missing and now holds a subtree built since `mark`.
    pub(super) fn created(&mut self, mark: Mark) {
        self.forget_since(mark);
        self.paths.push(self.at.clone());
        self.log(Revert::Put(None), true);
    }

    /// The list at `at` had `len` elements and grew at its end.
    pub(super) fn appended(&mut self, len: usize) {
        self.paths.push(self.at.clone());
        self.log(Revert::Truncate(len), true);
    }

    /// Records what a setter did to `map[key]`, the field at `at`.
    pub(super) fn written(&mut self, written: Written, map: &Map<String, Value>, key: &str) {
        match written {
            Written::Nothing => {}
            Written::Replaced(old) => {
                let new = values::field(map, key).expect("a field just set");
                self.replaced(old, new);
            }
            Written::Appended(len) => self.appended(len),
        }
    }

    /// Drops what was recorded since `mark`: it lies in a subtree recorded whole.
    pub(super) fn forget_since(&mut self, mark: Mark) {
        self.paths.truncate(mark.paths);
        self.undo.truncate(mark.undo);
    }

    fn log(&mut self, revert: Revert, differs: bool) {
        self.undo.push(Undo {
            at: self.at.clone(),
            revert,
            differs,
        });
    }
}

/// Whether one pointer is the other or under it.
fn overlap(a: &str, b: &str) -> bool {
    let (outer, inner) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

impl Undo {
    fn revert(self, object: &mut Value) {
        match self.revert {
            Revert::Put(old) => pointer::set(object, &self.at, old),
            Revert::Truncate(len) => match pointer::get_mut(object, &self.at) {
                Some(Value::Array(items)) => items.truncate(len),
                _ => unreachable!("undo follows the changes back"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Sets the field at `at` the way a setter would, and records it.
    fn set(edits: &mut Edits, object: &mut Value, at: &str, new: Value) {
        edits.at = at.into();
        let old = pointer::get_mut(object, at).cloned();
        pointer::set(object, at, Some(new.clone()));
        edits.replaced(old, &new);
    }

    #[test]
    fn changes_are_recorded_and_compared_with_the_round_start() {
        let mut object = json!({"a": {"b/c": 1}, "l": [1, {"x": 1}]});
        let mut edits = Edits::default();
        set(&mut edits, &mut object, "/a/b~1c", json!(2));
        object["l"].as_array_mut().unwrap().push(json!(3));
        edits.at = "/l".into();
        edits.appended(2);
        set(&mut edits, &mut object, "/l/1", json!({"x": 2}));
        object["a"]["new"] = json!({"d": 1});
        edits.at = "/a/new".into();
        edits.created(edits.mark());
        set(&mut edits, &mut object, "/a/new/d", json!(2));
        assert_eq!(
            edits.take_paths().collect::<Vec<_>>(),
            ["/a/b~1c", "/l", "/l/1/x", "/a/new", "/a/new/d"]
        );
        assert_eq!(edits.decided(), Some(true), "/a/b~1c stands alone");
        assert!(edits.round_changed(&object));
        assert_eq!(edits.decided(), Some(false), "nothing changed");
    }

    #[test]
    fn changes_that_cancel_out_leave_the_round_unchanged() {
        let mut object = json!({"a": {"b": 1}, "c": 80});
        let mut edits = Edits::default();
        set(&mut edits, &mut object, "/c", json!(80.0));
        assert_eq!(edits.decided(), Some(false), "80 is 80.0");
        set(&mut edits, &mut object, "/a/b", json!(3));
        set(&mut edits, &mut object, "/a/new", json!(true));
        set(&mut edits, &mut object, "/a", json!({"b": 1}));
        assert_eq!(edits.decided(), None);
        assert!(!edits.round_changed(&object));
        set(&mut edits, &mut object, "/a/b", json!(3));
        set(&mut edits, &mut object, "/a/b", json!(4));
        assert!(edits.round_changed(&object));
    }
}
