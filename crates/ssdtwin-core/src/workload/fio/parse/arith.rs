//! Integer arithmetic in size values, `bs=(2*4096)` (HOWTO "Parameter types": an
//! expression in parentheses with `+ - * / % ^`).
//!
//! fio evaluates these with a yacc grammar in doubles when it was built with arithmetic
//! support (Debian's fio 3.33 was not, and refuses every expression). ssdtwin evaluates
//! them in integers: operands are sizes (`4k` honours `kb_base`), `/` truncates, `^` is
//! a power and binds tightest (right-associative), unary minus is allowed inside, and the
//! result must be a non-negative byte count. Recursion is bounded, so hostile input only
//! ever produces an error.

use super::values;

/// Deepest nesting of parentheses and unary minus accepted.
const MAX_DEPTH: u32 = 64;

/// Evaluates `text`, which starts with `(`, to a byte count.
pub(super) fn evaluate(text: &str, kb_base: u64) -> Result<u64, String> {
    let mut parser = Parser { text, pos: 0, kb_base, depth: 0 };
    let value = parser.expression()?;
    parser.skip_spaces();
    if parser.pos != text.len() {
        return Err(format!("unexpected '{}' in expression", &text[parser.pos..]));
    }
    u64::try_from(value).map_err(|_| "expression must give a non-negative size".to_string())
}

/// Recursive-descent parser over `text`; `pos` is a byte offset on a char boundary.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
    kb_base: u64,
    depth: u32,
}

const OVERFLOW: &str = "expression overflows";

impl Parser<'_> {
    fn skip_spaces(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_spaces();
        self.text[self.pos..].chars().next()
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH { Err("expression nested too deeply".into()) } else { Ok(()) }
    }

    /// `term (('+' | '-') term)*`
    fn expression(&mut self) -> Result<i128, String> {
        let mut value = self.term()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.pos += 1;
            let rhs = self.term()?;
            value = if op == '+' { value.checked_add(rhs) } else { value.checked_sub(rhs) }.ok_or(OVERFLOW)?;
        }
        Ok(value)
    }

    /// `unary (('*' | '/' | '%') unary)*`
    fn term(&mut self) -> Result<i128, String> {
        let mut value = self.unary()?;
        while let Some(op @ ('*' | '/' | '%')) = self.peek() {
            self.pos += 1;
            let rhs = self.unary()?;
            value = match op {
                '*' => value.checked_mul(rhs).ok_or(OVERFLOW)?,
                _ if rhs == 0 => return Err("division by zero in expression".into()),
                '/' => value / rhs,
                _ => value % rhs,
            };
        }
        Ok(value)
    }

    /// `'-' unary | power`
    fn unary(&mut self) -> Result<i128, String> {
        if self.peek() == Some('-') {
            self.pos += 1;
            self.enter()?;
            let value = self.unary()?;
            self.depth -= 1;
            return value.checked_neg().ok_or_else(|| OVERFLOW.into());
        }
        self.power()
    }

    /// `atom ('^' unary)?`
    fn power(&mut self) -> Result<i128, String> {
        let base = self.atom()?;
        if self.peek() != Some('^') {
            return Ok(base);
        }
        self.pos += 1;
        self.enter()?;
        let exponent = self.unary()?;
        self.depth -= 1;
        let exponent = u32::try_from(exponent).map_err(|_| "exponent must be a small non-negative integer")?;
        base.checked_pow(exponent).ok_or_else(|| OVERFLOW.into())
    }

    /// `'(' expression ')' | size`
    fn atom(&mut self) -> Result<i128, String> {
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                self.enter()?;
                let value = self.expression()?;
                self.depth -= 1;
                if self.peek() != Some(')') {
                    return Err("missing ')' in expression".into());
                }
                self.pos += 1;
                Ok(value)
            }
            Some(c) if c.is_ascii_alphanumeric() => {
                let rest = &self.text[self.pos..];
                let len = rest.find(|c: char| !c.is_ascii_alphanumeric() && c != '.').unwrap_or(rest.len());
                self.pos += len;
                values::size(&rest[..len], self.kb_base).map(i128::from)
            }
            Some(c) => Err(format!("unexpected '{c}' in expression")),
            None => Err("expression ends too early".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_and_precedence() {
        assert_eq!(evaluate("(2*4096)", 1024), Ok(8192));
        assert_eq!(evaluate("( 2 * 2048 )", 1024), Ok(4096));
        assert_eq!(evaluate("(1+2*3)", 1024), Ok(7));
        assert_eq!(evaluate("((1+2)*3)", 1024), Ok(9));
        assert_eq!(evaluate("(2^12)", 1024), Ok(4096));
        assert_eq!(evaluate("(2^3^2)", 1024), Ok(512));
        assert_eq!(evaluate("(8192/3)", 1024), Ok(2730));
        assert_eq!(evaluate("(10%4)", 1024), Ok(2));
        assert_eq!(evaluate("(10-4-3)", 1024), Ok(3));
        assert_eq!(evaluate("(-4+8)", 1024), Ok(4));
        assert_eq!(evaluate("(2*4k)", 1024), Ok(8192));
        assert_eq!(evaluate("(2*4k)", 1000), Ok(8000));
    }

    #[test]
    fn bad_expressions_are_refused() {
        assert_eq!(evaluate("(1/0)", 1024), Err("division by zero in expression".into()));
        assert_eq!(evaluate("(4096", 1024), Err("missing ')' in expression".into()));
        assert_eq!(evaluate("(1+)", 1024), Err("unexpected ')' in expression".into()));
        assert_eq!(evaluate("(1)x", 1024), Err("unexpected 'x' in expression".into()));
        assert_eq!(evaluate("(1-2)", 1024), Err("expression must give a non-negative size".into()));
        assert_eq!(evaluate("(2^200)", 1024), Err("expression overflows".into()));
        assert_eq!(evaluate("(2^-1)", 1024), Err("exponent must be a small non-negative integer".into()));
        assert_eq!(evaluate(&"(".repeat(200), 1024), Err("expression nested too deeply".into()));
        assert_eq!(evaluate(&format!("({}1)", "-".repeat(200)), 1024), Err("expression nested too deeply".into()));
        assert_eq!(
            evaluate("(2.5*2)", 1024),
            Err("fio reads only whole numbers here; use a smaller unit instead (e.g. 1536k for 1.5m)".into())
        );
    }
}
