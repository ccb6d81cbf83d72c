//! Using the ACADEMY (seed `000_…`, "Using the ACADEMY"): the rules a player follows when it
//! consults the libraries and when it posts a middle-game pattern. The player (`ets gtp`,
//! `ets arena`) calls these; they decide nothing about Go.
//!
//! - Opening: library consultations are limited to 25% of the player's opening moves
//!   ([`OpeningBudget`]: the k-th consultation is allowed once the player has decided 4k opening
//!   moves, this one included, so at most ⌊moves/4⌋ are taken from the library).
//! - Middle game and endgame: only in positions of very low expected value
//!   ([`Usage::may_consult_later`]: below 0.33, the seed's own "strict negative evaluation").
//! - A player of ELO E accepts only patterns of average ELO above E − 200 ([`Usage::accepts`]).
//! - Middle-game insertion ([`Usage::should_post`]): the opponent's ELO is above E − 100, the
//!   move raises the expected value by at least 0.20 (0.10 when it goes from below 0.5 to above
//!   0.5) — "by 20%" read as 20 points of the 0–1 value, the stricter reading — and the game is a
//!   win or a draw for the player.

use super::library::Outcome;
use super::notation::Signature;

/// The thresholds of the usage rules (the seed's values by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Usage {
    /// The share of opening moves that may come from the library (0.25).
    pub opening_share: f64,
    /// Middle-game and endgame consultation only below this expected value (0.33).
    pub low_value: f64,
    /// Accept patterns whose average ELO is above E − this (200).
    pub accept_margin: f64,
    /// Post only against opponents above E − this (100).
    pub opponent_margin: f64,
    /// The rise of the expected value a posted move needs (0.20).
    pub gain: f64,
    /// The rise needed when the value crosses 0.5 upwards (0.10).
    pub gain_crossing: f64,
}

impl Default for Usage {
    fn default() -> Self {
        Usage {
            opening_share: 0.25,
            low_value: 0.33,
            accept_margin: 200.0,
            opponent_margin: 100.0,
            gain: 0.20,
            gain_crossing: 0.10,
        }
    }
}

impl Usage {
    /// Whether a player may consult the middle-game or endgame library in a position whose
    /// expected value (for the player) is `value`.
    pub fn may_consult_later(&self, value: f64) -> bool {
        value < self.low_value
    }

    /// Whether a player of ELO `player_elo` accepts a pattern with signature `sig`.
    pub fn accepts(&self, player_elo: f64, sig: &Signature) -> bool {
        sig.e > player_elo - self.accept_margin
    }

    /// The middle-game insertion criterion: whether a move that took the player's expected value
    /// from `before` to `after`, in a game against `opponent_elo` that ended in `result` (the
    /// player's), should be posted.
    pub fn should_post(&self, player_elo: f64, opponent_elo: f64, before: f64, after: f64, result: Outcome) -> bool {
        if opponent_elo <= player_elo - self.opponent_margin || result == Outcome::Loss {
            return false;
        }
        let rise = after - before;
        let needed = if before < 0.5 && after > 0.5 {
            self.gain_crossing
        } else {
            self.gain
        };
        rise >= needed - 1e-12
    }

    /// A fresh opening budget under these rules.
    pub fn opening_budget(&self) -> OpeningBudget {
        OpeningBudget {
            share: self.opening_share,
            decided: 0,
            consulted: 0,
        }
    }
}

/// The 25% rule of opening consultations, kept over one game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpeningBudget {
    share: f64,
    decided: u32,
    consulted: u32,
}

impl OpeningBudget {
    /// Whether the player may take its next opening move from the library.
    pub fn may_consult(&self) -> bool {
        ((self.consulted + 1) as f64) <= self.share * (self.decided + 1) as f64 + 1e-9
    }
    /// Records an opening move decided, and whether it came from the library.
    pub fn record(&mut self, from_library: bool) {
        self.decided += 1;
        self.consulted += u32::from(from_library);
    }
    /// Opening moves decided and consultations so far.
    pub fn counts(&self) -> (u32, u32) {
        (self.decided, self.consulted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_of_the_opening_at_most() {
        let mut b = Usage::default().opening_budget();
        let mut allowed = Vec::new();
        for m in 1..=12 {
            let ok = b.may_consult();
            if ok {
                allowed.push(m);
            }
            b.record(ok);
        }
        assert_eq!(allowed, vec![4, 8, 12]);
        // a consultation not taken is not spent
        let mut b = Usage::default().opening_budget();
        for _ in 0..7 {
            b.record(false);
        }
        assert!(b.may_consult());
        b.record(true);
        assert!(b.may_consult(), "9 moves decided: 2 consultations allowed");
        b.record(true);
        assert!(!b.may_consult());
        assert_eq!(b.counts(), (9, 2));
    }

    #[test]
    fn later_consultation_only_when_the_position_is_bad() {
        let u = Usage::default();
        assert!(u.may_consult_later(0.2));
        assert!(!u.may_consult_later(0.33));
        assert!(!u.may_consult_later(0.6));
    }

    #[test]
    fn players_accept_patterns_of_players_not_200_weaker() {
        let u = Usage::default();
        let sig = |e| Signature { n: 1, e, v: 0.5, p: 1 };
        assert!(u.accepts(2000.0, &sig(1801.0)));
        assert!(!u.accepts(2000.0, &sig(1800.0)));
        assert!(u.accepts(2000.0, &sig(2500.0)));
    }

    #[test]
    fn the_insertion_criterion() {
        let u = Usage::default();
        // opponent 1901 > 2000 − 100, +0.20, a win: post
        assert!(u.should_post(2000.0, 1901.0, 0.2, 0.4, Outcome::Win));
        // opponent exactly E − 100: no
        assert!(!u.should_post(2000.0, 1900.0, 0.2, 0.4, Outcome::Win));
        // +0.19: no; crossing 0.5 needs only +0.10
        assert!(!u.should_post(2000.0, 2000.0, 0.6, 0.79, Outcome::Win));
        assert!(u.should_post(2000.0, 2000.0, 0.45, 0.55, Outcome::Draw));
        assert!(
            !u.should_post(2000.0, 2000.0, 0.45, 0.5, Outcome::Draw),
            "to 0.5 is not above 0.5"
        );
        // a lost game: never
        assert!(!u.should_post(2000.0, 2500.0, 0.1, 0.9, Outcome::Loss));
    }
}
