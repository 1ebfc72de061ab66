//! The names of struct fields as each door spells them: `snake_case` in Python,
//! `camelCase` in JavaScript, from one serde description.
//!
//! serde fixes field names at compile time (`rename_all`), and no well-kept
//! crate renames them at run time in both directions (`serde_hooks` only
//! serializes), so this module holds two small adapters:
//!
//! - [`to_json`] serializes through [`CaseSerializer`], which renames the field
//!   names of structs (and of struct variants, and of a `#[serde(flatten)]`ed
//!   struct) and nothing else: map keys (paths, metadata keys, environment
//!   names), enum variants and string values are written as they are.
//! - [`from_value`] deserializes options from a parsed JSON value through
//!   [`Cased`], which maps the caller's field names back to serde's, refuses a
//!   key that names no field, and names the offending option (with its path,
//!   in the caller's spelling) in every error.
//!
//! Map keys are never renamed because only a struct's fields are known to be
//! names of the program; a map key is data.

use std::collections::HashMap;
use std::fmt::{self, Display};
use std::sync::{Mutex, OnceLock};

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::Error;

/// How a door spells struct field names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Case {
    /// As serde writes them (`changes_root`): Python.
    Snake,
    /// `changesRoot`: JavaScript.
    Camel,
}

impl Case {
    /// `name` as this door spells it. The camel form of serde's static names is
    /// made once per name and kept for the process (the names of a program are
    /// a fixed, small set), because serde's serializers take `&'static str`.
    pub fn field(self, name: &'static str) -> &'static str {
        match self {
            Case::Snake => name,
            Case::Camel if !name.contains('_') => name,
            Case::Camel => {
                static NAMES: OnceLock<Mutex<HashMap<&'static str, &'static str>>> =
                    OnceLock::new();
                let names = NAMES.get_or_init(Default::default);
                // A poisoned lock still holds valid names: a panic cannot leave
                // the map half-inserted.
                let mut names = names.lock().unwrap_or_else(|p| p.into_inner());
                names
                    .entry(name)
                    .or_insert_with(|| Box::leak(camel(name).into_boxed_str()))
            }
        }
    }

    /// An owned name's spelling (a flattened struct's keys arrive as text).
    fn field_owned(self, name: &str) -> String {
        match self {
            Case::Snake => name.to_owned(),
            Case::Camel => camel(name),
        }
    }
}

/// `changes_root` → `changesRoot`; `non_utf8_path` → `nonUtf8Path`. Only `_`
/// separates words: digits and other characters stay as they are.
pub fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Serializes `value` to JSON text with its struct field names in `case`.
/// `Case::Snake` is serde's own output, byte for byte.
pub fn to_json<T: Serialize + ?Sized>(value: &T, case: Case) -> serde_json::Result<String> {
    match case {
        Case::Snake => serde_json::to_string(value),
        Case::Camel => {
            let mut out = Vec::new();
            let mut json = serde_json::Serializer::new(&mut out);
            value.serialize(CaseSerializer::new(&mut json, case))?;
            // serde_json writes only UTF-8.
            String::from_utf8(out).map_err(ser::Error::custom)
        }
    }
}

/// A serializer that hands everything to `S`, with struct field names in a
/// case of the door's ([`to_json`] is its use).
pub struct CaseSerializer<S> {
    inner: S,
    case: Case,
}

impl<S> CaseSerializer<S> {
    /// Wraps `inner`.
    pub fn new(inner: S, case: Case) -> Self {
        CaseSerializer { inner, case }
    }
}

/// A value serialized through a [`CaseSerializer`] of `case`: how nested
/// values keep the renaming.
struct Cased<'a, T: ?Sized> {
    value: &'a T,
    case: Case,
}

impl<T: Serialize + ?Sized> Serialize for Cased<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(CaseSerializer::new(s, self.case))
    }
}

/// The compound serializers of [`CaseSerializer`]: `S`'s, with each element
/// wrapped so that it is renamed too. `rename_keys`: a map that is a
/// flattened struct (see [`CaseSerializer::serialize_map`]).
pub struct Compound<C> {
    inner: C,
    case: Case,
    rename_keys: bool,
}

impl<C> Compound<C> {
    fn new(inner: C, case: Case) -> Self {
        Compound {
            inner,
            case,
            rename_keys: false,
        }
    }

    fn cased<'a, T: ?Sized>(&self, value: &'a T) -> Cased<'a, T> {
        Cased {
            value,
            case: self.case,
        }
    }
}

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(fn $method(self, $($arg: $ty),*) -> Result<Self::Ok, Self::Error> {
            self.inner.$method($($arg),*)
        })*
    };
}

impl<S: Serializer> Serializer for CaseSerializer<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Compound<S::SerializeSeq>;
    type SerializeTuple = Compound<S::SerializeTuple>;
    type SerializeTupleStruct = Compound<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Compound<S::SerializeTupleVariant>;
    type SerializeMap = Compound<S::SerializeMap>;
    type SerializeStruct = Compound<S::SerializeStruct>;
    type SerializeStructVariant = Compound<S::SerializeStructVariant>;

    forward! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
        serialize_f32(v: f32);
        serialize_f64(v: f64);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        let case = self.case;
        self.inner.serialize_some(&Cased { value, case })
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let case = self.case;
        self.inner
            .serialize_newtype_struct(name, &Cased { value, case })
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let case = self.case;
        (self.inner).serialize_newtype_variant(name, index, variant, &Cased { value, case })
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        Ok(Compound::new(self.inner.serialize_seq(len)?, self.case))
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        Ok(Compound::new(self.inner.serialize_tuple(len)?, self.case))
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        let inner = self.inner.serialize_tuple_struct(name, len)?;
        Ok(Compound::new(inner, self.case))
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        let inner = (self.inner).serialize_tuple_variant(name, index, variant, len)?;
        Ok(Compound::new(inner, self.case))
    }

    /// A map's keys are data and stay as they are — except in the map serde
    /// makes of a struct with a `#[serde(flatten)]` field, whose keys are the
    /// struct's field names. serde asks for that map without a length, while
    /// the standard maps (and `serde_json::Map`) always give theirs: the
    /// length is what tells them apart (tested below with both).
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        let mut map = Compound::new(self.inner.serialize_map(len)?, self.case);
        map.rename_keys = len.is_none();
        Ok(map)
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        let inner = self.inner.serialize_struct(name, len)?;
        Ok(Compound::new(inner, self.case))
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        let inner = (self.inner).serialize_struct_variant(name, index, variant, len)?;
        Ok(Compound::new(inner, self.case))
    }
}

impl<C: ser::SerializeSeq> ser::SerializeSeq for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        let value = self.cased(value);
        self.inner.serialize_element(&value)
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: ser::SerializeTuple> ser::SerializeTuple for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        let value = self.cased(value);
        self.inner.serialize_element(&value)
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: ser::SerializeTupleStruct> ser::SerializeTupleStruct for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        let value = self.cased(value);
        self.inner.serialize_field(&value)
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: ser::SerializeTupleVariant> ser::SerializeTupleVariant for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        let value = self.cased(value);
        self.inner.serialize_field(&value)
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: ser::SerializeMap> ser::SerializeMap for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), C::Error> {
        if self.rename_keys {
            // A flattened struct's key is one of its field names: text.
            if let Ok(Value::String(name)) = serde_json::to_value(key) {
                return self.inner.serialize_key(&self.case.field_owned(&name));
            }
        }
        self.inner.serialize_key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        let value = self.cased(value);
        self.inner.serialize_value(&value)
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: ser::SerializeStruct> ser::SerializeStruct for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), C::Error> {
        let value = self.cased(value);
        self.inner.serialize_field(self.case.field(key), &value)
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
        self.inner.skip_field(self.case.field(key))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: ser::SerializeStructVariant> ser::SerializeStructVariant for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), C::Error> {
        let value = self.cased(value);
        self.inner.serialize_field(self.case.field(key), &value)
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
        self.inner.skip_field(self.case.field(key))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

/// Deserializes `T` (a verb's options) from `value`, whose struct field names
/// are spelled in `case`. Every failure is `invalid-argument` naming the
/// option in the caller's spelling (`exclude[1].reason`) and `what` (the verb).
pub fn from_value<T: DeserializeOwned>(value: Value, case: Case, what: &str) -> crate::Result<T> {
    T::deserialize(OptionValue {
        value,
        case,
        path: String::new(),
    })
    .map_err(|e| e.into_error(case, what))
}

/// A failure to read options, with where it happened.
#[derive(Debug)]
pub struct OptionError {
    kind: OptionErrorKind,
    /// The option's path in the caller's spelling, once known.
    path: Option<String>,
}

#[derive(Debug)]
enum OptionErrorKind {
    /// serde's message (wrong type, bad value).
    Message(String),
    /// A required field (serde's name) is missing.
    Missing(&'static str),
    /// A key that names no field, with the fields (caller's spelling).
    Unknown(String, Vec<&'static str>),
}

impl OptionError {
    /// The path is the innermost one: the first value that saw the error.
    fn at(mut self, path: &str) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_owned());
        }
        self
    }

    fn into_error(self, case: Case, what: &str) -> Error {
        let path = self.path.unwrap_or_default();
        let message = match self.kind {
            OptionErrorKind::Message(message) if path.is_empty() => {
                format!("options of `{what}`: {message}")
            }
            OptionErrorKind::Message(message) => {
                format!("option `{path}` of `{what}`: {message}")
            }
            OptionErrorKind::Missing(field) => {
                format!(
                    "missing option `{}` of `{what}`",
                    join(&path, case.field(field))
                )
            }
            OptionErrorKind::Unknown(key, expected) => {
                let key = join(&path, &key);
                if expected.is_empty() {
                    format!("unknown option `{key}` of `{what}`: it takes no options")
                } else {
                    let list: Vec<String> = expected.iter().map(|f| format!("`{f}`")).collect();
                    format!(
                        "unknown option `{key}` of `{what}`; expected one of {}",
                        list.join(", ")
                    )
                }
            }
        };
        Error::InvalidArgument { message }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

impl Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            OptionErrorKind::Message(m) => f.write_str(m),
            OptionErrorKind::Missing(field) => write!(f, "missing field `{field}`"),
            OptionErrorKind::Unknown(key, _) => write!(f, "unknown field `{key}`"),
        }
    }
}

impl std::error::Error for OptionError {}

impl de::Error for OptionError {
    fn custom<T: Display>(msg: T) -> Self {
        OptionError {
            kind: OptionErrorKind::Message(msg.to_string()),
            path: None,
        }
    }

    fn missing_field(field: &'static str) -> Self {
        OptionError {
            kind: OptionErrorKind::Missing(field),
            path: None,
        }
    }
}

/// A JSON value being read as options: `case` spells its struct fields,
/// `path` is where it sits (caller's spelling), for messages.
struct OptionValue {
    value: Value,
    case: Case,
    path: String,
}

impl OptionValue {
    fn child(&self, value: Value, segment: &str) -> OptionValue {
        let path = if segment.starts_with('[') {
            format!("{}{segment}", self.path)
        } else {
            join(&self.path, segment)
        };
        OptionValue {
            value,
            case: self.case,
            path,
        }
    }

    fn invalid_type(&self, expected: &dyn de::Expected) -> OptionError {
        de::Error::invalid_type(unexpected(&self.value), expected)
    }
}

/// The value as serde names what it found ("a string", "integer `3`").
fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => de::Unexpected::Unsigned(u),
            (_, Some(i), _) => de::Unexpected::Signed(i),
            (_, _, Some(f)) => de::Unexpected::Float(f),
            _ => de::Unexpected::Other("number"),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

impl<'de> de::Deserializer<'de> for OptionValue {
    type Error = OptionError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, OptionError> {
        let path = self.path.clone();
        let result = match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(ref n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_string(s),
            Value::Array(ref items) => {
                let items: Vec<OptionValue> = (items.iter().enumerate())
                    .map(|(i, item)| self.child(item.clone(), &format!("[{i}]")))
                    .collect();
                let mut seq = de::value::SeqDeserializer::new(items.into_iter());
                // No `?`: the error must get this value's path below.
                visitor
                    .visit_seq(&mut seq)
                    .and_then(|value| seq.end().map(|()| value))
            }
            Value::Object(ref map) => {
                // A map's keys are data: as they are.
                let entries: Vec<(String, OptionValue)> = (map.iter())
                    .map(|(k, v)| (k.clone(), self.child(v.clone(), k)))
                    .collect();
                let mut access = de::value::MapDeserializer::new(entries.into_iter());
                visitor
                    .visit_map(&mut access)
                    .and_then(|value| access.end().map(|()| value))
            }
        };
        result.map_err(|e| e.at(&path))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, OptionError> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, OptionError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, OptionError> {
        let Value::Object(ref map) = self.value else {
            return Err(self.invalid_type(&visitor).at(&self.path));
        };
        let case = self.case;
        let mut entries = Vec::with_capacity(map.len());
        for (key, value) in map {
            // The caller's spelling of a field, back to serde's; a key in
            // serde's spelling that the caller's case spells otherwise is as
            // unknown as any other.
            let Some(field) = fields.iter().find(|f| case.field(f) == key) else {
                let expected = fields.iter().map(|f| case.field(f)).collect();
                return Err(OptionError {
                    kind: OptionErrorKind::Unknown(key.clone(), expected),
                    path: Some(self.path.clone()),
                });
            };
            entries.push((*field, self.child(value.clone(), key)));
        }
        let access = Fields {
            entries: entries.into_iter(),
            value: None,
        };
        visitor.visit_map(access).map_err(|e| e.at(&self.path))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, OptionError> {
        let path = self.path.clone();
        match self.value {
            Value::String(ref variant) => {
                let variant: de::value::StringDeserializer<OptionError> =
                    variant.clone().into_deserializer();
                visitor.visit_enum(variant)
            }
            Value::Object(ref map) if map.len() == 1 => {
                let Some((variant, value)) = map.iter().next() else {
                    return Err(self.invalid_type(&visitor).at(&path));
                };
                let value = self.child(value.clone(), variant);
                visitor.visit_enum(Variant {
                    name: variant.clone(),
                    value,
                })
            }
            _ => Err(self.invalid_type(&visitor)),
        }
        .map_err(|e| e.at(&path))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

/// A struct's fields, each value's failure named with its path — also one
/// its type's own `Deserialize` gives after reading (a task rule's name).
struct Fields {
    entries: std::vec::IntoIter<(&'static str, OptionValue)>,
    value: Option<OptionValue>,
}

impl<'de> de::MapAccess<'de> for Fields {
    type Error = OptionError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, OptionError> {
        let Some((field, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        let field: de::value::StrDeserializer<'_, OptionError> = field.into_deserializer();
        seed.deserialize(field).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, OptionError> {
        let value = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("a value without a key"))?;
        let path = value.path.clone();
        seed.deserialize(value).map_err(|e| e.at(&path))
    }
}

impl<'de> IntoDeserializer<'de, OptionError> for OptionValue {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

/// An enum written `{"variant": value}`.
struct Variant {
    name: String,
    value: OptionValue,
}

impl<'de> de::EnumAccess<'de> for Variant {
    type Error = OptionError;
    type Variant = OptionValue;
    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, OptionValue), OptionError> {
        let name: de::value::StringDeserializer<OptionError> = self.name.into_deserializer();
        Ok((seed.deserialize(name)?, self.value))
    }
}

impl<'de> de::VariantAccess<'de> for OptionValue {
    type Error = OptionError;
    fn unit_variant(self) -> Result<(), OptionError> {
        de::Deserialize::deserialize(self)
    }
    fn newtype_variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<S::Value, OptionError> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, OptionError> {
        de::Deserializer::deserialize_any(self, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, OptionError> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}

/// Parses options text (a JSON object) for `what`.
pub fn parse_options(text: &str, what: &str) -> crate::Result<Value> {
    let value: Value = serde_json::from_str(text).map_err(|e| Error::InvalidArgument {
        message: format!("options of `{what}` are not JSON: {e}"),
    })?;
    match value {
        Value::Object(_) => Ok(value),
        Value::Null => Ok(Value::Object(Map::new())),
        other => Err(Error::InvalidArgument {
            message: format!(
                "options of `{what}` must be an object, not {}",
                match other {
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    Value::String(_) => "a string",
                    _ => "an array",
                }
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    use super::*;

    #[derive(Serialize)]
    struct Inner {
        exit_code: i32,
        env_vars: BTreeMap<String, String>,
    }

    #[derive(Serialize)]
    #[serde(tag = "by", rename_all = "kebab-case")]
    enum Reason {
        ChangedFile { changed_path: String },
        NoReason,
    }

    #[derive(Serialize)]
    struct Flat {
        walked_root: String,
        #[serde(flatten)]
        inner: Inner,
    }

    #[derive(Serialize)]
    struct Outer {
        changes_root: Option<String>,
        inner: Vec<Inner>,
        meta: BTreeMap<String, Inner>,
        json_map: Map<String, Value>,
        reason: Reason,
        other: Reason,
        task_rule: &'static str,
        flat: Flat,
    }

    fn outer() -> Outer {
        let env: BTreeMap<String, String> = [("snake_key".into(), "snake_value".into())].into();
        let inner = || Inner {
            exit_code: 1,
            env_vars: env.clone(),
        };
        let mut json_map = Map::new();
        json_map.insert("raw_key".into(), serde_json::json!({"deep_key": 1}));
        Outer {
            changes_root: Some("openspec/changes".into()),
            inner: vec![inner()],
            meta: [("path_with_underscore.md".to_owned(), inner())].into(),
            json_map,
            reason: Reason::ChangedFile {
                changed_path: "a_b".into(),
            },
            other: Reason::NoReason,
            task_rule: "task-checkbox-v1",
            flat: Flat {
                walked_root: "x".into(),
                inner: inner(),
            },
        }
    }

    #[test]
    fn camel_joins_words_at_underscores_only() {
        assert_eq!(camel("changes_root"), "changesRoot");
        assert_eq!(camel("non_utf8_path"), "nonUtf8Path");
        assert_eq!(camel("roots"), "roots");
        assert_eq!(camel("_private"), "_private");
        assert_eq!(Case::Camel.field("state_record"), "stateRecord");
        assert_eq!(Case::Snake.field("state_record"), "state_record");
    }

    #[test]
    fn camel_renames_struct_fields_and_leaves_map_keys_and_values() {
        let json: Value = serde_json::from_str(&to_json(&outer(), Case::Camel).unwrap()).unwrap();
        let env = serde_json::json!({"snake_key": "snake_value"});
        let inner = serde_json::json!({"exitCode": 1, "envVars": env});
        assert_eq!(
            json,
            serde_json::json!({
                "changesRoot": "openspec/changes",
                "inner": [inner],
                "meta": {"path_with_underscore.md": inner},
                "jsonMap": {"raw_key": {"deep_key": 1}},
                "reason": {"by": "changed-file", "changedPath": "a_b"},
                "other": {"by": "no-reason"},
                "taskRule": "task-checkbox-v1",
                "flat": {"walkedRoot": "x", "exitCode": 1, "envVars": env},
            })
        );
    }

    #[test]
    fn snake_is_serdes_own_output() {
        let value = outer();
        assert_eq!(
            to_json(&value, Case::Snake).unwrap(),
            serde_json::to_string(&value).unwrap()
        );
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Exclude {
        path: String,
        #[serde(default)]
        why_not: Option<String>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Echo {
        Off,
        PassThrough,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Options {
        changes_root: String,
        #[serde(default)]
        exclude: Vec<Exclude>,
        #[serde(default)]
        env_vars: BTreeMap<String, String>,
        #[serde(default)]
        timeout_secs: Option<f64>,
        #[serde(default = "off")]
        echo: Echo,
    }

    fn off() -> Echo {
        Echo::Off
    }

    fn read(json: Value, case: Case) -> crate::Result<Options> {
        from_value(json, case, "verb")
    }

    fn message(json: Value, case: Case) -> String {
        let e = read(json, case).unwrap_err();
        assert_eq!(e.code(), "invalid-argument");
        e.to_string()
    }

    #[test]
    fn camel_options_map_back_to_fields_and_keep_map_keys() {
        let options = read(
            serde_json::json!({
                "changesRoot": "c",
                "exclude": [{"path": "a", "whyNot": "b"}],
                "envVars": {"SNAKE_KEY": "1", "snake_key": "2"},
                "timeoutSecs": 1.5,
                "echo": "pass-through",
            }),
            Case::Camel,
        )
        .unwrap();
        assert_eq!(
            options,
            Options {
                changes_root: "c".into(),
                exclude: vec![Exclude {
                    path: "a".into(),
                    why_not: Some("b".into())
                }],
                env_vars: [
                    ("SNAKE_KEY".into(), "1".into()),
                    ("snake_key".into(), "2".into())
                ]
                .into(),
                timeout_secs: Some(1.5),
                echo: Echo::PassThrough,
            }
        );
    }

    #[test]
    fn snake_options_read_as_serde_names_them() {
        let options = read(
            serde_json::json!({"changes_root": "c", "timeout_secs": null}),
            Case::Snake,
        )
        .unwrap();
        assert_eq!(options.changes_root, "c");
        assert_eq!(options.echo, Echo::Off);
        assert_eq!(options.timeout_secs, None);
    }

    #[test]
    fn an_unknown_key_is_named_with_the_expected_ones_in_the_callers_case() {
        assert_eq!(
            message(
                serde_json::json!({"changesRoot": "c", "root": 1}),
                Case::Camel
            ),
            "invalid arguments: unknown option `root` of `verb`; expected one of \
             `changesRoot`, `exclude`, `envVars`, `timeoutSecs`, `echo`"
        );
        // serde's spelling is not the caller's in JavaScript.
        assert!(
            message(serde_json::json!({"changes_root": "c"}), Case::Camel)
                .contains("unknown option `changes_root`")
        );
        assert!(
            message(
                serde_json::json!({"changes_root": "c", "exclude": [{"path": "a", "why": 1}]}),
                Case::Snake
            )
            .contains(
                "unknown option `exclude[0].why` of `verb`; expected one of `path`, `why_not`"
            )
        );
    }

    #[test]
    fn a_wrong_type_names_the_option_where_it_is() {
        assert_eq!(
            message(
                serde_json::json!({"changesRoot": "c", "exclude": [{"path": 3}]}),
                Case::Camel
            ),
            "invalid arguments: option `exclude[0].path` of `verb`: invalid type: integer `3`, expected a string"
        );
        assert!(
            message(serde_json::json!({"changesRoot": 1}), Case::Camel)
                .starts_with("invalid arguments: option `changesRoot` of `verb`: invalid type")
        );
        assert!(
            message(
                serde_json::json!({"changes_root": "c", "echo": "loud"}),
                Case::Snake
            )
            .starts_with("invalid arguments: option `echo` of `verb`: unknown variant `loud`")
        );
        assert!(
            message(
                serde_json::json!({"changes_root": "c", "env_vars": {"K": 1}}),
                Case::Snake
            )
            .starts_with("invalid arguments: option `env_vars.K` of `verb`: invalid type")
        );
    }

    #[test]
    fn a_sequence_or_map_where_text_belongs_is_named_too() {
        assert!(
            message(serde_json::json!({"changesRoot": ["c"]}), Case::Camel).starts_with(
                "invalid arguments: option `changesRoot` of `verb`: invalid type: sequence"
            )
        );
        assert!(
            message(serde_json::json!({"changesRoot": {"a": 1}}), Case::Camel).starts_with(
                "invalid arguments: option `changesRoot` of `verb`: invalid type: map"
            )
        );
    }

    #[test]
    fn a_value_its_type_refuses_after_reading_is_named_too() {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Rule {
            #[serde(default)]
            task_rule: Option<crate::tasks::TaskRule>,
        }
        let ok: Rule = from_value(
            serde_json::json!({"taskRule": "openspec-checkbox"}),
            Case::Camel,
            "verb",
        )
        .unwrap();
        assert_eq!(ok.task_rule, Some(crate::tasks::TaskRule::OpenspecCheckbox));
        let e = from_value::<Rule>(serde_json::json!({"taskRule": "v2"}), Case::Camel, "verb")
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("invalid arguments: option `taskRule` of `verb`: invalid arguments: unknown task rule 'v2'"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_option_is_named_in_the_callers_case() {
        assert_eq!(
            message(serde_json::json!({}), Case::Camel),
            "invalid arguments: missing option `changesRoot` of `verb`"
        );
        assert_eq!(
            message(
                serde_json::json!({"changes_root": "c", "exclude": [{"why_not": "x"}]}),
                Case::Snake
            ),
            "invalid arguments: missing option `exclude[0].path` of `verb`"
        );
    }

    #[test]
    fn options_text_must_be_a_json_object() {
        assert!(parse_options("{}", "v").is_ok());
        assert_eq!(parse_options("null", "v").unwrap(), serde_json::json!({}));
        let e = parse_options("[1]", "v").unwrap_err();
        assert_eq!(e.code(), "invalid-argument");
        assert!(e.to_string().contains("must be an object, not an array"));
        assert!(
            parse_options("{", "v")
                .unwrap_err()
                .to_string()
                .contains("not JSON")
        );
    }
}
