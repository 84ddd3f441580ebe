//! The sum (⊕) of two feature sets: `A`'s indices first, then `B`'s shifted
//! by `A`'s size. Longer sums nest (`Sum<A, Sum<B, C>>`). This is the only
//! place where blocks are combined, for the compiled set and parsed ones alike.

use shakmaty::{Chess, Move};

use super::{FeatureBlock, Perspective};

#[derive(Default)]
pub struct Sum<A, B>(pub A, pub B);

/// Adds `offset` to the indices pushed since `start`.
fn shift(out: &mut [u32], start: usize, offset: usize) {
    out[start..].iter_mut().for_each(|i| *i += offset as u32);
}

/// One part's update: its changes, or, when only this part needs a refresh,
/// its whole old and new active lists.
fn part_changes<F: FeatureBlock + ?Sized>(
    part: &F,
    offset: usize,
    (pos, m, after, p): (&Chess, Move, &Chess, Perspective),
    added: &mut Vec<u32>,
    removed: &mut Vec<u32>,
) {
    let (a, r) = (added.len(), removed.len());
    if part.needs_refresh(pos, m, p) {
        part.active(pos, p, removed);
        part.active(after, p, added);
    } else {
        part.changes(pos, m, after, p, added, removed);
    }
    shift(added, a, offset);
    shift(removed, r, offset);
}

impl<A: FeatureBlock, B: FeatureBlock> FeatureBlock for Sum<A, B> {
    fn name(&self) -> &'static str {
        "sum"
    }

    fn size(&self) -> usize {
        self.0.size() + self.1.size()
    }

    fn active(&self, pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
        self.0.active(pos, p, out);
        let start = out.len();
        self.1.active(pos, p, out);
        shift(out, start, self.0.size());
    }

    /// Only when both parts do; otherwise the part that needs one is
    /// updated as removal of its old features and addition of its new ones.
    fn needs_refresh(&self, pos: &Chess, m: Move, p: Perspective) -> bool {
        self.0.needs_refresh(pos, m, p) && self.1.needs_refresh(pos, m, p)
    }

    fn changes_on_pass(&self) -> bool {
        self.0.changes_on_pass() || self.1.changes_on_pass()
    }

    fn changes(
        &self,
        pos: &Chess,
        m: Move,
        after: &Chess,
        p: Perspective,
        added: &mut Vec<u32>,
        removed: &mut Vec<u32>,
    ) {
        part_changes(&self.0, 0, (pos, m, after, p), added, removed);
        part_changes(&self.1, self.0.size(), (pos, m, after, p), added, removed);
    }

    fn blocks(&self) -> Vec<(&dyn FeatureBlock, usize)> {
        let mut blocks = self.0.blocks();
        blocks.extend(self.1.blocks().into_iter().map(|(b, offset)| (b, offset + self.0.size())));
        blocks
    }
}

/// A block chosen at run time behaves as the block it holds.
impl FeatureBlock for Box<dyn FeatureBlock> {
    fn name(&self) -> &'static str {
        self.as_ref().name()
    }

    fn size(&self) -> usize {
        self.as_ref().size()
    }

    fn active(&self, pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
        self.as_ref().active(pos, p, out)
    }

    fn needs_refresh(&self, pos: &Chess, m: Move, p: Perspective) -> bool {
        self.as_ref().needs_refresh(pos, m, p)
    }

    fn changes_on_pass(&self) -> bool {
        self.as_ref().changes_on_pass()
    }

    fn changes(
        &self,
        pos: &Chess,
        m: Move,
        after: &Chess,
        p: Perspective,
        added: &mut Vec<u32>,
        removed: &mut Vec<u32>,
    ) {
        self.as_ref().changes(pos, m, after, p, added, removed)
    }

    fn blocks(&self) -> Vec<(&dyn FeatureBlock, usize)> {
        self.as_ref().blocks()
    }
}
