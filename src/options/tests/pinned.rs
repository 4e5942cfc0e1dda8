//! The `pinned` option: indices, a predicate, or every message.

use super::V;
use crate::error::Result;
use crate::options::pinned;

fn read(value: &V, len: Option<usize>, all: bool) -> Result<Vec<u32>> {
    pinned(value, len, "pinned", all, |_| Ok(vec![0, 2]))
}

#[test]
fn pins_are_indices_a_predicate_or_all() {
    assert!(read(&V::Null, Some(3), false).unwrap().is_empty());
    assert!(read(&V::Bool(false), Some(3), true).unwrap().is_empty());
    assert_eq!(read(&V::Bool(true), Some(3), true).unwrap(), [0, 1, 2]);
    assert_eq!(read(&V::Func, Some(3), false).unwrap(), [0, 2]);
    let given = V::Arr(vec![V::Num(2.0), V::Num(0.0), V::Num(2.0)]);
    assert_eq!(read(&given, Some(3), false).unwrap(), [0, 2]);
    // A body's are as given: checked once it is read.
    assert_eq!(read(&given, None, false).unwrap(), [2, 0, 2]);
}

#[test]
fn bad_pins_name_the_place() {
    let message = |value: &V, len, all| read(value, len, all).unwrap_err().to_string();
    let expected = "pinned: expected an array of message indices or (not with a body) a function (message, index) => boolean, got ";
    assert!(
        message(&V::Bool(true), Some(3), false).contains(&format!("{expected}a thrown boolean"))
    );
    assert!(message(&V::Func, None, false).contains(expected));
    assert!(
        message(&V::Arr(vec![V::Str("1")]), Some(3), false)
            .contains("pinned[0] must be a whole number")
    );
    assert!(message(&V::Arr(vec![V::Num(5e9)]), None, false).contains("pinned[0]: out of range"));
    assert!(message(&V::Arr(vec![V::Num(7.0)]), Some(3), false).contains("pinned"));
}
