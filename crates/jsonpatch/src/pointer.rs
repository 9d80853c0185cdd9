//! JSON Pointers (RFC 6901): escaped and parsed in one place, built one token at a time
//! (as change records and undo logs use them), and followed without allocating unless a
//! token is escaped.

use serde_json::Value;
use std::borrow::Cow;

/// Escapes one token for use in a pointer (`~` is `~0`, `/` is `~1`).
pub fn escape(token: &str) -> Cow<'_, str> {
    if !token.bytes().any(|b| b == b'~' || b == b'/') {
        return Cow::Borrowed(token);
    }
    Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
}

/// Unescapes one token in a single pass (`~01` is `~1`, not `/`); a `~` followed by
/// anything else stays as it is.
pub fn unescape(token: &str) -> Cow<'_, str> {
    if !token.contains('~') {
        return Cow::Borrowed(token);
    }
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.peek() {
                Some('1') => {
                    chars.next();
                    out.push('/');
                    continue;
                }
                Some('0') => {
                    chars.next();
                    out.push('~');
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// Splits a JSON Pointer into unescaped tokens, borrowing those that have no escapes.
pub fn tokens(path: &str) -> Result<Vec<Cow<'_, str>>, String> {
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err("a JSON Pointer must start with '/'".into());
    };
    Ok(rest.split('/').map(unescape).collect())
}

/// [`tokens`], owned.
pub fn parse(path: &str) -> Result<Vec<String>, String> {
    Ok(tokens(path)?.into_iter().map(Cow::into_owned).collect())
}

/// Appends `/key`, escaping `~` and `/`.
pub fn push_token(at: &mut String, key: &str) {
    at.push('/');
    at.push_str(&escape(key));
}

/// Appends `/index`.
pub fn push_index(at: &mut String, index: usize) {
    at.push('/');
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = index;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    at.extend(digits[start..].iter().map(|&d| char::from(d)));
}

/// The value at `at`, to change it.
pub fn get_mut<'v>(root: &'v mut Value, at: &str) -> Option<&'v mut Value> {
    let mut current = root;
    for token in at.split('/').skip(1) {
        current = match current {
            Value::Object(map) => map.get_mut(unescape(token).as_ref())?,
            Value::Array(items) => items.get_mut(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

/// Sets the map field or list element at `at` to `value`; `None` removes the field. A
/// field that exists keeps its place in the map; a new one goes last.
pub fn set(root: &mut Value, at: &str, value: Option<Value>) {
    let (parent, token) = at.rsplit_once('/').expect("a pointer below the root");
    match (get_mut(root, parent), value) {
        (Some(Value::Object(map)), None) => {
            map.shift_remove(unescape(token).as_ref());
        }
        (Some(Value::Object(map)), Some(value)) => {
            map.insert(unescape(token).into_owned(), value);
        }
        (Some(Value::Array(items)), Some(value)) => {
            items[token.parse::<usize>().expect("a list index")] = value;
        }
        _ => unreachable!("{at} names a map field or list element"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_are_built_and_followed_with_escapes() {
        let mut at = String::new();
        push_token(&mut at, "a/b~c");
        push_index(&mut at, 1);
        assert_eq!(at, "/a~1b~0c/1");
        for (index, text) in [
            (0, "/0"),
            (10, "/10"),
            (usize::MAX, "/18446744073709551615"),
        ] {
            let mut at = String::new();
            push_index(&mut at, index);
            assert_eq!(at, text);
        }
        let mut doc = json!({"a/b~c": [0, {"x": 1}]});
        assert_eq!(get_mut(&mut doc, &at), Some(&mut json!({"x": 1})));
        set(&mut doc, "/a~1b~0c/0", Some(json!(5)));
        set(&mut doc, "/new", Some(json!(true)));
        set(&mut doc, "/a~1b~0c", Some(json!([])));
        assert_eq!(doc, json!({"a/b~c": [], "new": true}));
        set(&mut doc, "/new", None);
        assert_eq!(get_mut(&mut doc, "/new"), None);
    }
}
