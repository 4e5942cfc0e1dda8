//! The later steps of one message (where a cut may fall inside it).

/// A later step of one host message: where it starts and what it holds up to the next step.
/// The message's ids are in order, so a step's ids are a run of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The index of the part where the step starts.
    pub part: usize,
    /// Estimated tokens of the step, framing included.
    pub tokens: u64,
    /// How many of the message's tool calls the step makes.
    pub calls: usize,
    /// How many of the message's tool results it holds.
    pub results: usize,
}

/// The later steps of one message: a `Vec<Step>` behind one pointer, none when there are none
/// (most messages). The facts of a long history are held for every message: a pointer rather
/// than a vector's three words saves two words a message.
// The extra allocation clippy warns of is the point: one pointer in every message's facts, a
// second allocation only in the few messages that have steps.
#[allow(clippy::box_collection)]
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Steps(Option<Box<Vec<Step>>>);

impl Steps {
    /// Adds a step after the others.
    pub fn push(&mut self, step: Step) {
        self.0.get_or_insert_with(Box::default).push(step);
    }
}

impl std::ops::Deref for Steps {
    type Target = [Step];

    fn deref(&self) -> &[Step] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl std::ops::DerefMut for Steps {
    fn deref_mut(&mut self) -> &mut [Step] {
        self.0.as_deref_mut().map_or(&mut [], Vec::as_mut_slice)
    }
}

impl From<Vec<Step>> for Steps {
    fn from(steps: Vec<Step>) -> Steps {
        Steps((!steps.is_empty()).then(|| Box::new(steps)))
    }
}

impl FromIterator<Step> for Steps {
    fn from_iter<I: IntoIterator<Item = Step>>(iter: I) -> Steps {
        Steps::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl<'a> IntoIterator for &'a Steps {
    type Item = &'a Step;
    type IntoIter = std::slice::Iter<'a, Step>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Steps {
    type Item = &'a mut Step;
    type IntoIter = std::slice::IterMut<'a, Step>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl std::fmt::Debug for Steps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
