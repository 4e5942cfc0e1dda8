//! JSON text read the way `serde_json` (1.0, without `float_roundtrip`) reads it, for the two
//! things the crate needs of that reading and nothing more: the number a number's text is, and
//! the words and place of the first error in malformed text. The scanner (`scan`) does all the
//! reading on the hot paths; this is reached for numbers it cannot write as they stand and for
//! text it refuses. The order of the checks, the positions and the wording follow
//! `serde_json`'s deserializer exactly (a property test holds them to it), with one difference
//! on purpose: a `\u` escape of a lone surrogate is read, as `JSON.parse` reads it (the scanner
//! reads it as U+FFFD), where `serde_json` refuses it.

/// What went wrong, worded as `serde_json` words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Code {
    EofWhileParsingList,
    EofWhileParsingObject,
    EofWhileParsingString,
    EofWhileParsingValue,
    ExpectedColon,
    ExpectedListCommaOrEnd,
    ExpectedObjectCommaOrEnd,
    ExpectedSomeIdent,
    ExpectedSomeValue,
    InvalidEscape,
    InvalidNumber,
    NumberOutOfRange,
    ControlCharacterWhileParsingString,
    KeyMustBeAString,
    TrailingComma,
    TrailingCharacters,
    RecursionLimitExceeded,
}

impl Code {
    fn words(self) -> &'static str {
        match self {
            Code::EofWhileParsingList => "EOF while parsing a list",
            Code::EofWhileParsingObject => "EOF while parsing an object",
            Code::EofWhileParsingString => "EOF while parsing a string",
            Code::EofWhileParsingValue => "EOF while parsing a value",
            Code::ExpectedColon => "expected `:`",
            Code::ExpectedListCommaOrEnd => "expected `,` or `]`",
            Code::ExpectedObjectCommaOrEnd => "expected `,` or `}`",
            Code::ExpectedSomeIdent => "expected ident",
            Code::ExpectedSomeValue => "expected value",
            Code::InvalidEscape => "invalid escape",
            Code::InvalidNumber => "invalid number",
            Code::NumberOutOfRange => "number out of range",
            Code::ControlCharacterWhileParsingString => {
                "control character (\\u0000-\\u001F) found while parsing a string"
            }
            Code::KeyMustBeAString => "key must be a string",
            Code::TrailingComma => "trailing comma",
            Code::TrailingCharacters => "trailing characters",
            Code::RecursionLimitExceeded => "recursion limit exceeded",
        }
    }
}

/// An error and the byte index its line and column are counted at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fail {
    pub(crate) code: Code,
    at: usize,
}

type Read<T> = Result<T, Fail>;

/// A number as `serde_json` holds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Number {
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Number {
    /// The number as a double.
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Number::U64(n) => n as f64,
            Number::I64(n) => n as f64,
            Number::F64(n) => n,
        }
    }
}

/// The number the text `raw` (a whole number, as the scanner accepts it) is, as `serde_json`
/// reads it; `None` when it is beyond a double's range (`serde_json` refuses it).
pub(crate) fn number(raw: &str) -> Option<Number> {
    let mut reader = Reader::new(raw.as_bytes());
    let positive = reader.peek() != Some(b'-');
    if !positive {
        reader.eat();
    }
    reader.integer(positive).ok()
}

/// `serde_json`'s message for the first error in the JSON text `text` ("expected value at line
/// 1 column 2"); `None` when it reads it whole.
pub(crate) fn error(text: &str) -> Option<String> {
    let mut reader = Reader::new(text.as_bytes());
    let fail = reader.value().and_then(|()| reader.end()).err()?;
    let (line, column) = reader.position(fail.at);
    Some(text!(
        fail.code.words(),
        " at line ",
        line,
        " column ",
        column
    ))
}

// serde_json's recursion limit: the 128th container inside another is refused.
const DEPTH: u8 = 128;

struct Reader<'a> {
    bytes: &'a [u8],
    index: usize,
    remaining_depth: u8,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader {
            bytes,
            index: 0,
            remaining_depth: DEPTH,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.index).copied()
    }

    fn peek_or_null(&self) -> u8 {
        self.peek().unwrap_or(0)
    }

    fn eat(&mut self) {
        self.index += 1;
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek();
        if byte.is_some() {
            self.index += 1;
        }
        byte
    }

    /// An error at the byte just read.
    fn error(&self, code: Code) -> Fail {
        Fail {
            code,
            at: self.index,
        }
    }

    /// An error at the byte about to be read.
    fn peek_error(&self, code: Code) -> Fail {
        Fail {
            code,
            at: (self.index + 1).min(self.bytes.len()),
        }
    }

    /// The line and column `serde_json` gives index `at`.
    fn position(&self, at: usize) -> (usize, usize) {
        let before = self.bytes.get(..at).unwrap_or(self.bytes);
        let start_of_line = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = 1 + before
            .get(..start_of_line)
            .unwrap_or_default()
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        (line, at - start_of_line)
    }

    fn whitespace(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.eat();
        }
        self.peek()
    }

    fn end(&mut self) -> Read<()> {
        match self.whitespace() {
            Some(_) => Err(self.peek_error(Code::TrailingCharacters)),
            None => Ok(()),
        }
    }

    fn value(&mut self) -> Read<()> {
        let Some(peek) = self.whitespace() else {
            return Err(self.peek_error(Code::EofWhileParsingValue));
        };
        match peek {
            b'n' => self.ident(b"ull"),
            b't' => self.ident(b"rue"),
            b'f' => self.ident(b"alse"),
            b'-' => {
                self.eat();
                self.integer(false).map(drop)
            }
            b'0'..=b'9' => self.integer(true).map(drop),
            b'"' => {
                self.eat();
                self.string()
            }
            b'[' | b'{' => {
                self.remaining_depth -= 1;
                if self.remaining_depth == 0 {
                    return Err(self.peek_error(Code::RecursionLimitExceeded));
                }
                self.eat();
                if peek == b'[' {
                    self.list()?;
                } else {
                    self.object()?;
                }
                self.remaining_depth += 1;
                Ok(())
            }
            _ => Err(self.peek_error(Code::ExpectedSomeValue)),
        }
    }

    fn ident(&mut self, rest: &[u8]) -> Read<()> {
        self.eat();
        for &expected in rest {
            match self.next() {
                None => return Err(self.error(Code::EofWhileParsingValue)),
                Some(next) if next != expected => return Err(self.error(Code::ExpectedSomeIdent)),
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn list(&mut self) -> Read<()> {
        let mut first = true;
        loop {
            let Some(peek) = self.whitespace() else {
                return Err(self.peek_error(Code::EofWhileParsingList));
            };
            if peek == b']' {
                break;
            }
            if !first {
                if peek != b',' {
                    return Err(self.peek_error(Code::ExpectedListCommaOrEnd));
                }
                self.eat();
                match self.whitespace() {
                    Some(b']') => return Err(self.peek_error(Code::TrailingComma)),
                    Some(_) => {}
                    None => return Err(self.peek_error(Code::EofWhileParsingValue)),
                }
            }
            first = false;
            self.value()?;
        }
        // serde_json's `end_seq`: the `]` found above.
        self.eat();
        Ok(())
    }

    fn object(&mut self) -> Read<()> {
        let mut first = true;
        loop {
            let Some(peek) = self.whitespace() else {
                return Err(self.peek_error(Code::EofWhileParsingObject));
            };
            if peek == b'}' {
                break;
            }
            if first {
                if peek != b'"' {
                    return Err(self.peek_error(Code::KeyMustBeAString));
                }
            } else {
                if peek != b',' {
                    return Err(self.peek_error(Code::ExpectedObjectCommaOrEnd));
                }
                self.eat();
                match self.whitespace() {
                    Some(b'"') => {}
                    Some(b'}') => return Err(self.peek_error(Code::TrailingComma)),
                    Some(_) => return Err(self.peek_error(Code::KeyMustBeAString)),
                    None => return Err(self.peek_error(Code::EofWhileParsingValue)),
                }
            }
            first = false;
            self.eat();
            self.string()?;
            match self.whitespace() {
                Some(b':') => self.eat(),
                Some(_) => return Err(self.peek_error(Code::ExpectedColon)),
                None => return Err(self.peek_error(Code::EofWhileParsingObject)),
            }
            self.value()?;
        }
        self.eat();
        Ok(())
    }

    /// The rest of a string whose opening quote was read.
    fn string(&mut self) -> Read<()> {
        loop {
            match self.next() {
                None => return Err(self.error(Code::EofWhileParsingString)),
                Some(b'"') => return Ok(()),
                Some(b'\\') => self.escape()?,
                Some(0..0x20) => return Err(self.error(Code::ControlCharacterWhileParsingString)),
                Some(_) => {}
            }
        }
    }

    /// An escape whose backslash was read.
    fn escape(&mut self) -> Read<()> {
        match self.next() {
            None => Err(self.error(Code::EofWhileParsingString)),
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(()),
            Some(b'u') => {
                let unit = self.hex()?;
                // A leading surrogate takes the trailing one after it; without one it is read
                // alone (see the module's docs).
                let pair = self.bytes.get(self.index..self.index + 2) == Some(b"\\u");
                if (0xD800..0xDC00).contains(&unit) && pair {
                    let after = self.index;
                    self.index += 2;
                    if !(0xDC00..0xE000).contains(&self.hex()?) {
                        self.index = after;
                    }
                }
                Ok(())
            }
            Some(_) => Err(self.error(Code::InvalidEscape)),
        }
    }

    /// The four hex digits of a `\u` escape.
    fn hex(&mut self) -> Read<u16> {
        let Some(digits) = self.bytes.get(self.index..self.index + 4) else {
            self.index = self.bytes.len();
            return Err(self.error(Code::EofWhileParsingString));
        };
        self.index += 4;
        let mut unit = 0u16;
        for &digit in digits {
            let value = (digit as char).to_digit(16).ok_or(Fail {
                code: Code::InvalidEscape,
                at: self.index,
            })?;
            unit = unit * 16 + value as u16;
        }
        Ok(unit)
    }

    /// A number after its sign (serde_json's `parse_integer`).
    fn integer(&mut self, positive: bool) -> Read<Number> {
        let Some(next) = self.next() else {
            return Err(self.error(Code::EofWhileParsingValue));
        };
        match next {
            b'0' => match self.peek_or_null() {
                b'0'..=b'9' => Err(self.peek_error(Code::InvalidNumber)),
                _ => self.number(positive, 0),
            },
            b'1'..=b'9' => {
                let mut significand = u64::from(next - b'0');
                while let c @ b'0'..=b'9' = self.peek_or_null() {
                    let digit = u64::from(c - b'0');
                    if overflows(significand, digit) {
                        return self.long_integer(positive, significand).map(Number::F64);
                    }
                    self.eat();
                    significand = significand * 10 + digit;
                }
                self.number(positive, significand)
            }
            _ => Err(self.error(Code::InvalidNumber)),
        }
    }

    fn number(&mut self, positive: bool, significand: u64) -> Read<Number> {
        Ok(match self.peek_or_null() {
            b'.' => Number::F64(self.decimal(positive, significand, 0)?),
            b'e' | b'E' => Number::F64(self.exponent(positive, significand, 0)?),
            _ if positive => Number::U64(significand),
            _ => {
                let negative = (significand as i64).wrapping_neg();
                // A float on underflow, or for `-0`.
                if negative >= 0 {
                    Number::F64(-(significand as f64))
                } else {
                    Number::I64(negative)
                }
            }
        })
    }

    fn decimal(&mut self, positive: bool, mut significand: u64, exponent: i32) -> Read<f64> {
        self.eat();
        let mut after_point = 0;
        while let c @ b'0'..=b'9' = self.peek_or_null() {
            let digit = u64::from(c - b'0');
            if overflows(significand, digit) {
                // Further digits are ignored.
                while let b'0'..=b'9' = self.peek_or_null() {
                    self.eat();
                }
                return self.exponent_or_end(positive, significand, exponent + after_point);
            }
            self.eat();
            significand = significand * 10 + digit;
            after_point -= 1;
        }
        if after_point == 0 {
            return Err(match self.peek() {
                Some(_) => self.peek_error(Code::InvalidNumber),
                None => self.peek_error(Code::EofWhileParsingValue),
            });
        }
        self.exponent_or_end(positive, significand, exponent + after_point)
    }

    fn exponent_or_end(&mut self, positive: bool, significand: u64, exponent: i32) -> Read<f64> {
        match self.peek_or_null() {
            b'e' | b'E' => self.exponent(positive, significand, exponent),
            _ => self.of_parts(positive, significand, exponent),
        }
    }

    fn exponent(&mut self, positive: bool, significand: u64, starting: i32) -> Read<f64> {
        self.eat();
        let positive_exponent = match self.peek_or_null() {
            b'+' => {
                self.eat();
                true
            }
            b'-' => {
                self.eat();
                false
            }
            _ => true,
        };
        let Some(next) = self.next() else {
            return Err(self.error(Code::EofWhileParsingValue));
        };
        let mut exponent = match next {
            b'0'..=b'9' => i32::from(next - b'0'),
            _ => return Err(self.error(Code::InvalidNumber)),
        };
        while let c @ b'0'..=b'9' = self.peek_or_null() {
            self.eat();
            let digit = i32::from(c - b'0');
            if exponent >= i32::MAX / 10 && (exponent > i32::MAX / 10 || digit > i32::MAX % 10) {
                // Infinity is an error; zero is zero.
                if significand != 0 && positive_exponent {
                    return Err(self.error(Code::NumberOutOfRange));
                }
                while let b'0'..=b'9' = self.peek_or_null() {
                    self.eat();
                }
                return Ok(if positive { 0.0 } else { -0.0 });
            }
            exponent = exponent * 10 + digit;
        }
        let exponent = if positive_exponent {
            starting.saturating_add(exponent)
        } else {
            starting.saturating_sub(exponent)
        };
        self.of_parts(positive, significand, exponent)
    }

    /// An integer too long for a `u64`: its first digits and a power of ten.
    fn long_integer(&mut self, positive: bool, significand: u64) -> Read<f64> {
        let mut exponent = 0;
        loop {
            match self.peek_or_null() {
                b'0'..=b'9' => {
                    self.eat();
                    exponent += 1;
                }
                b'.' => return self.decimal(positive, significand, exponent),
                b'e' | b'E' => return self.exponent(positive, significand, exponent),
                _ => return self.of_parts(positive, significand, exponent),
            }
        }
    }

    /// `significand × 10^exponent` as serde_json computes it (one multiplication or division
    /// by a power of ten from its table, [`pow10`], so not always the nearest double).
    fn of_parts(&mut self, positive: bool, significand: u64, mut exponent: i32) -> Read<f64> {
        let mut f = significand as f64;
        loop {
            match (exponent.unsigned_abs() <= 308).then(|| pow10(exponent.unsigned_abs())) {
                Some(pow) => {
                    if exponent >= 0 {
                        f *= pow;
                        if f.is_infinite() {
                            return Err(self.error(Code::NumberOutOfRange));
                        }
                    } else {
                        f /= pow;
                    }
                    break;
                }
                None => {
                    if f == 0.0 {
                        break;
                    }
                    if exponent >= 0 {
                        return Err(self.error(Code::NumberOutOfRange));
                    }
                    f /= 1e308;
                    exponent += 308;
                }
            }
        }
        Ok(if positive { f } else { -f })
    }
}

/// Whether `significand * 10 + digit` overflows a `u64`.
fn overflows(significand: u64, digit: u64) -> bool {
    significand >= u64::MAX / 10 && (significand > u64::MAX / 10 || digit > u64::MAX % 10)
}

/// The double nearest to 10^`k` (`k` ≤ 308): the table of powers of ten serde_json multiplies
/// by, computed (the table was 2.5 KB of the module that gzip cannot shrink). Up to 10^38 the
/// power is a `u128`, which `as` rounds to the nearest double; beyond, it is 5^`k` × 2^`k`, with
/// 5^`k` worked out in 64-bit limbs and rounded from its top 128 bits (the bits below kept as
/// one sticky bit, far below where it rounds).
fn pow10(k: u32) -> f64 {
    if k <= 38 {
        return 10u128.pow(k) as f64;
    }
    // 5^k × 2^64, least significant limb first: at least three limbs.
    let mut limbs: Vec<u64> = vec![0, 1];
    for step in std::iter::repeat_n(27, (k / 27) as usize).chain([k % 27]) {
        let mut carry = 0u128;
        for limb in &mut limbs {
            let product = u128::from(*limb) * u128::from(5u64.pow(step)) + carry;
            *limb = product as u64;
            carry = product >> 64;
        }
        if carry > 0 {
            limbs.push(carry as u64);
        }
    }
    let n = limbs.len();
    let word = |from_top: usize| limbs.get(n - from_top).copied().unwrap_or(0);
    let (a, b, c) = (word(1), word(2), word(3));
    let shift = a.leading_zeros();
    let mut top = u128::from(a) << 64 | u128::from(b);
    let mut rest = c;
    if shift > 0 {
        top = top << shift | u128::from(c >> (64 - shift));
        rest = c << shift;
    }
    let below = limbs.get(..n - 3).unwrap_or_default();
    top |= u128::from(rest != 0 || below.iter().any(|&w| w != 0));
    // 10^k = 5^k × 2^64 × 2^(k - 64) ≈ top × 2^(64 × (n - 3) - shift + k); at most 2^896.
    let exponent = 64 * (n as i32 - 3) - shift as i32 + k as i32;
    (top as f64) * f64::from_bits(((exponent + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    #[test]
    fn powers_of_ten_are_the_nearest_doubles() {
        for k in 0..=308 {
            let nearest: f64 = format!("1e{k}").parse().unwrap();
            assert_eq!(super::pow10(k).to_bits(), nearest.to_bits(), "10^{k}");
        }
    }
}
