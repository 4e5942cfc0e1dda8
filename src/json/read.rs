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
    Some(format!(
        "{} at line {line} column {column}",
        fail.code.words()
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
    /// by a power of ten from a table, so not always the nearest double).
    fn of_parts(&mut self, positive: bool, significand: u64, mut exponent: i32) -> Read<f64> {
        let mut f = significand as f64;
        loop {
            match POW10.get(exponent.unsigned_abs() as usize) {
                Some(&pow) => {
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

// The powers of ten serde_json multiplies by: each the double nearest to it.
#[rustfmt::skip]
static POW10: [f64; 309] = [
    1e000, 1e001, 1e002, 1e003, 1e004, 1e005, 1e006, 1e007, 1e008, 1e009, //
    1e010, 1e011, 1e012, 1e013, 1e014, 1e015, 1e016, 1e017, 1e018, 1e019, //
    1e020, 1e021, 1e022, 1e023, 1e024, 1e025, 1e026, 1e027, 1e028, 1e029, //
    1e030, 1e031, 1e032, 1e033, 1e034, 1e035, 1e036, 1e037, 1e038, 1e039, //
    1e040, 1e041, 1e042, 1e043, 1e044, 1e045, 1e046, 1e047, 1e048, 1e049, //
    1e050, 1e051, 1e052, 1e053, 1e054, 1e055, 1e056, 1e057, 1e058, 1e059, //
    1e060, 1e061, 1e062, 1e063, 1e064, 1e065, 1e066, 1e067, 1e068, 1e069, //
    1e070, 1e071, 1e072, 1e073, 1e074, 1e075, 1e076, 1e077, 1e078, 1e079, //
    1e080, 1e081, 1e082, 1e083, 1e084, 1e085, 1e086, 1e087, 1e088, 1e089, //
    1e090, 1e091, 1e092, 1e093, 1e094, 1e095, 1e096, 1e097, 1e098, 1e099, //
    1e100, 1e101, 1e102, 1e103, 1e104, 1e105, 1e106, 1e107, 1e108, 1e109, //
    1e110, 1e111, 1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118, 1e119, //
    1e120, 1e121, 1e122, 1e123, 1e124, 1e125, 1e126, 1e127, 1e128, 1e129, //
    1e130, 1e131, 1e132, 1e133, 1e134, 1e135, 1e136, 1e137, 1e138, 1e139, //
    1e140, 1e141, 1e142, 1e143, 1e144, 1e145, 1e146, 1e147, 1e148, 1e149, //
    1e150, 1e151, 1e152, 1e153, 1e154, 1e155, 1e156, 1e157, 1e158, 1e159, //
    1e160, 1e161, 1e162, 1e163, 1e164, 1e165, 1e166, 1e167, 1e168, 1e169, //
    1e170, 1e171, 1e172, 1e173, 1e174, 1e175, 1e176, 1e177, 1e178, 1e179, //
    1e180, 1e181, 1e182, 1e183, 1e184, 1e185, 1e186, 1e187, 1e188, 1e189, //
    1e190, 1e191, 1e192, 1e193, 1e194, 1e195, 1e196, 1e197, 1e198, 1e199, //
    1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206, 1e207, 1e208, 1e209, //
    1e210, 1e211, 1e212, 1e213, 1e214, 1e215, 1e216, 1e217, 1e218, 1e219, //
    1e220, 1e221, 1e222, 1e223, 1e224, 1e225, 1e226, 1e227, 1e228, 1e229, //
    1e230, 1e231, 1e232, 1e233, 1e234, 1e235, 1e236, 1e237, 1e238, 1e239, //
    1e240, 1e241, 1e242, 1e243, 1e244, 1e245, 1e246, 1e247, 1e248, 1e249, //
    1e250, 1e251, 1e252, 1e253, 1e254, 1e255, 1e256, 1e257, 1e258, 1e259, //
    1e260, 1e261, 1e262, 1e263, 1e264, 1e265, 1e266, 1e267, 1e268, 1e269, //
    1e270, 1e271, 1e272, 1e273, 1e274, 1e275, 1e276, 1e277, 1e278, 1e279, //
    1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287, 1e288, 1e289, //
    1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299, //
    1e300, 1e301, 1e302, 1e303, 1e304, 1e305, 1e306, 1e307, 1e308,
];
