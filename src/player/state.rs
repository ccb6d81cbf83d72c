//! A game in progress as the player and the GTP engine keep it: the fast board, komi, the moves
//! with undo, and the history as the recorder's boards for classification (thesis §5.3.2.1: the
//! player classifies the game so far, not a lone position).

use crate::go::board::{Board, Color, Point};
use crate::go::fastboard::{BadSize, FastBoard, Illegal, Rules, Vtx};

/// A game in progress.
#[derive(Debug, Clone)]
pub struct GameState {
    /// The position.
    pub board: FastBoard,
    /// Komi.
    pub komi: f32,
    /// The moves played since the setup (colour, move; a pass is [`Vtx::PASS`]).
    pub moves: Vec<(Color, Vtx)>,
    /// The setup (empty board or handicap stones).
    pub setup: FastBoard,
    /// Boards before each move, for undo.
    undo: Vec<FastBoard>,
}

impl GameState {
    /// An empty `size × size` board.
    pub fn new(size: usize, komi: f32, rules: Rules) -> Result<GameState, BadSize> {
        let board = FastBoard::with_rules(size, size, rules)?;
        Ok(GameState {
            setup: board.clone(),
            board,
            komi,
            moves: Vec::new(),
            undo: Vec::new(),
        })
    }

    /// The side to move: the opposite of the last mover; Black first, or White after handicap
    /// stones.
    pub fn to_move(&self) -> Color {
        match self.moves.last() {
            Some((c, _)) => c.other(),
            None => {
                if self.setup.empty_count() < self.setup.cols() * self.setup.rows() {
                    Color::White
                } else {
                    Color::Black
                }
            }
        }
    }

    /// Plays a move (any colour, as GTP allows).
    pub fn play(&mut self, color: Color, v: Vtx) -> Result<(), Illegal> {
        let before = self.board.clone();
        self.board.play(color, v)?;
        self.undo.push(before);
        self.moves.push((color, v));
        Ok(())
    }

    /// Takes back the last move; false when there is none.
    pub fn undo(&mut self) -> bool {
        match self.undo.pop() {
            Some(b) => {
                self.board = b;
                self.moves.pop();
                true
            }
            None => false,
        }
    }

    /// Places setup stones (handicap); only before any move.
    pub fn place_setup(&mut self, color: Color, v: Vtx) -> Result<(), Illegal> {
        self.board.play(color, v)?;
        // A setup stone is not a move: keep the move count and the turn.
        self.setup = FastBoard::from_board(&self.board.to_board(), self.board.rules()).expect("same size");
        self.board = self.setup.clone();
        Ok(())
    }

    /// The game as the recorder's boards: the position after 0, 1, …, N moves, and the vertex
    /// played to reach each (None for the first and for passes).
    pub fn history_boards(&self) -> (Vec<Board>, Vec<Option<Point>>) {
        let mut b = self.setup.to_board();
        let mut boards = vec![b.clone()];
        let mut last = vec![None];
        for &(c, v) in &self.moves {
            let p = self.board.point(v);
            if let Some(p) = p {
                b.play(c, p);
            }
            boards.push(b.clone());
            last.push(p);
        }
        (boards, last)
    }
}
