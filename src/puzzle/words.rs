//! What the trainer says to a player, in one language per line: Chinese (the default) or
//! English. Moves are counted as players count them (步: one side's moves), never in plies;
//! red's files are 一..九 and black's １..９ in Chinese text. The terminal's `puzzle play`
//! and `train` speak through these; the JSON keeps plies and names.

use std::fmt;
use std::str::FromStr;

use crate::game::piece::Color;

pub use super::Reason;
use super::attempt::{Ending, Hint, Played};
use super::{Feedback, Goal};
use super::{Named, Outlook};

/// The language of the trainer's words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    /// 中文.
    #[default]
    Zh,
    /// English.
    En,
}

/// A language canju does not speak.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("language '{0}': expected zh (中文) or en (English)")]
pub struct ParseLangError(pub String);

impl FromStr for Lang {
    type Err = ParseLangError;
    fn from_str(s: &str) -> Result<Lang, ParseLangError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "zh" | "zh-cn" | "zh_cn" | "cn" | "chinese" | "中文" => Ok(Lang::Zh),
            "en" | "en-us" | "en_us" | "en-gb" | "english" => Ok(Lang::En),
            _ => Err(ParseLangError(s.to_string())),
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        })
    }
}

impl Lang {
    /// The language set by `CANJU_LANG` (`zh` or `en`), else Chinese. A value that is no
    /// language is an error, so that a typo is not silently ignored.
    pub fn from_env() -> Result<Lang, ParseLangError> {
        match std::env::var("CANJU_LANG") {
            Ok(v) if !v.trim().is_empty() => v.parse(),
            _ => Ok(Lang::Zh),
        }
    }

    /// The text of this language among two.
    pub fn pick<'s>(self, zh: &'s str, en: &'s str) -> &'s str {
        match self {
            Lang::Zh => zh,
            Lang::En => en,
        }
    }
}

/// A side's name: 红方 / 黑方, red / black.
pub fn side(lang: Lang, c: Color) -> &'static str {
    match (lang, c) {
        (Lang::Zh, Color::Red) => "红方",
        (Lang::Zh, Color::Black) => "黑方",
        (Lang::En, c) => c.name(),
    }
}

/// Who is to move, under a board: "红方走棋", "red to move".
pub fn to_move(lang: Lang, c: Color) -> String {
    match lang {
        Lang::Zh => format!("{}走棋", side(lang, c)),
        Lang::En => format!("{} to move", c.name()),
    }
}

/// A number of one side's moves: "3步", "3 moves".
pub fn moves(lang: Lang, n: u32) -> String {
    match lang {
        Lang::Zh => format!("{n}步"),
        Lang::En if n == 1 => "1 move".to_string(),
        Lang::En => format!("{n} moves"),
    }
}

/// The moves of the side to move in a win of `plies` plies (its own moves, the mating one
/// included).
pub fn moves_of_plies(plies: u32) -> u32 {
    plies.div_ceil(2)
}

/// The goal as a player reads it: "红先胜（限3步，每步将军）", "red to move and win within
/// 3 moves, checking with every move".
pub fn goal(lang: Lang, goal: Goal, within: Option<u32>, checks: bool, mate: bool) -> String {
    match lang {
        Lang::Zh => {
            let mut extra = Vec::new();
            if let Some(n) = within {
                extra.push(format!("限{n}步"));
            }
            if checks {
                extra.push("每步将军（连将杀）".to_string());
            }
            if mate {
                extra.push("须将死".to_string());
            }
            if extra.is_empty() {
                goal.to_string()
            } else {
                format!("{goal}（{}）", extra.join("，"))
            }
        }
        Lang::En => {
            let mut s = format!(
                "{} to move and {}",
                goal.side.name(),
                if goal.win { "win" } else { "draw" }
            );
            if let Some(n) = within {
                s.push_str(&format!(" within {}", moves(lang, n)));
            }
            if checks {
                s.push_str(", checking with every move");
            }
            if mate {
                s.push_str(", by checkmate");
            }
            s
        }
    }
}

/// What the position is now for a player who has just lost the goal. Where the player
/// still wins (beyond the stipulated moves, or by the rule alone) or may still win (no
/// forced win proven within the moves left), it says so, and never that the win is gone.
fn loss_of_goal(lang: Lang, win_goal: bool, now: Outlook) -> String {
    if win_goal {
        match now {
            Outlook::Win(k) => {
                let more = moves(lang, k.div_ceil(2));
                return match lang {
                    Lang::Zh => format!("仍能取胜，但已超出限定步数：现在还要{more}杀"),
                    Lang::En => {
                        format!("still wins, but not within the moves left: mate in {more} now")
                    }
                };
            }
            Outlook::NoWin => {
                return lang
                    .pick("限定步数内已无杀法", "no forced win within the moves left")
                    .to_string();
            }
            Outlook::RuleWin(_) => {
                return lang
                    .pick(
                        "只能凭棋例（对方长打必须变着）取胜，已无杀法",
                        "it wins only by the repetition rule now (the other side's perpetual attack must change); the forced mate is gone",
                    )
                    .to_string();
            }
            _ => {}
        }
    }
    let gone = match win_goal {
        true => lang.pick("胜势已失", "the win is gone"),
        false => lang.pick("和势已失", "the draw is gone"),
    };
    let how = match now {
        Outlook::Draw => lang
            .pick(
                "现在是和棋（双方走最佳着法）",
                "now a draw (with best play)",
            )
            .to_string(),
        Outlook::Loss(n) => match lang {
            Lang::Zh => format!("反而要输：对方{}杀", moves(lang, moves_of_plies(n))),
            Lang::En => format!("now it loses: mated in {}", moves(lang, moves_of_plies(n))),
        },
        Outlook::RuleLoss(_) => lang
            .pick(
                "反而要输：按棋例判负",
                "now it loses by the repetition rule",
            )
            .to_string(),
        // (a draw goal's: a win, or a win by the rule, keeps the draw and is no mistake)
        Outlook::Win(_) | Outlook::NoWin | Outlook::RuleWin(_) => lang
            .pick("限定步数内已无杀法", "no forced win within the moves left")
            .to_string(),
    };
    match lang {
        Lang::Zh => format!("{gone}，{how}"),
        Lang::En => format!("{gone}: {how}"),
    }
}

/// The judgement of the player's move, one line: "车二进六：最佳，还有3步杀", "h2h8: good:
/// still wins, 2 moves slower than the best".
pub fn judgement(lang: Lang, goal: Goal, p: &Played) -> String {
    let m = p.mv.text(lang);
    // a position brought back in a win: no progress, whatever the distance
    if goal.win && p.repeats > 0 && p.feedback != Feedback::Mistake {
        let times = p.repeats + 1;
        let more = match p.now {
            Outlook::Win(k) if k > 0 => Some(k / 2),
            _ => None,
        };
        return match (lang, more) {
            (Lang::Zh, Some(k)) => format!(
                "{m}：重复局面（第{times}次出现），胜势没有进展：仍是{}杀；同一局面第{}次出现即判和",
                moves(lang, k),
                super::attempt::REPETITION_ENDS
            ),
            (Lang::Zh, None) => format!(
                "{m}：重复局面（第{times}次出现），胜势没有进展；同一局面第{}次出现即判和",
                super::attempt::REPETITION_ENDS
            ),
            (Lang::En, Some(k)) => format!(
                "{m}: repeats a position (its {} time), no progress: still mate in {}; the {} time a position comes, the game is drawn",
                ordinal(times),
                moves(lang, k),
                ordinal(super::attempt::REPETITION_ENDS)
            ),
            (Lang::En, None) => format!(
                "{m}: repeats a position (its {} time), no progress; the {} time a position comes, the game is drawn",
                ordinal(times),
                ordinal(super::attempt::REPETITION_ENDS)
            ),
        };
    }
    match p.feedback {
        Feedback::Best => {
            let more = match p.now {
                Outlook::Win(k) if goal.win && k > 0 => Some(k / 2),
                _ => None,
            };
            match (lang, more) {
                (Lang::Zh, Some(k)) => format!("{m}：最佳，还有{}杀", moves(lang, k)),
                (Lang::Zh, None) if goal.win => format!("{m}：最佳"),
                (Lang::Zh, None) => format!("{m}：正着，和势仍在"),
                (Lang::En, Some(k)) => format!("{m}: best: mate in {} more", moves(lang, k)),
                (Lang::En, None) if goal.win => format!("{m}: best"),
                (Lang::En, None) => format!("{m}: good: the draw still holds"),
            }
        }
        Feedback::Good { slower } => match lang {
            Lang::Zh => format!("{m}：好棋，仍然胜，但比最快的杀法慢{}", moves(lang, slower)),
            Lang::En => format!(
                "{m}: good: still wins, {} slower than the best",
                moves(lang, slower)
            ),
        },
        Feedback::Mistake => {
            let mut s = match lang {
                Lang::Zh => format!("{m}：错着，{}", loss_of_goal(lang, goal.win, p.now)),
                Lang::En => format!("{m}: mistake: {}", loss_of_goal(lang, goal.win, p.now)),
            };
            if let Some(r) = p.reason {
                s.push_str(&match lang {
                    Lang::Zh => format!("（{}）", r.zh),
                    Lang::En => format!(" ({})", r.en),
                });
            }
            if let Some(r) = &p.refutation {
                let r = r.text(lang);
                s.push_str(&match lang {
                    Lang::Zh => format!("；对方可应{r}"),
                    Lang::En => format!("; refutation {r}"),
                });
            }
            s.push_str(lang.pick("（悔棋再试）", " (undo to try again)"));
            s
        }
    }
}

/// The computer's reply, labelled by its role: defence against a win, attack against a
/// draw.
pub fn reply(lang: Lang, goal: Goal, mover: Color, named: &Named) -> String {
    let text = named.text(lang);
    match (lang, goal.win) {
        (Lang::Zh, true) => format!("{}应着：{text}", side(lang, mover)),
        (Lang::Zh, false) => format!("{}攻着：{text}", side(lang, mover)),
        (Lang::En, true) => format!("{} defends: {text}", side(lang, mover)),
        (Lang::En, false) => format!("{} attacks: {text}", side(lang, mover)),
    }
}

/// How an attempt ended.
pub fn ending(lang: Lang, e: Ending) -> String {
    match (lang, e) {
        (Lang::Zh, Ending::Checkmated(c)) => {
            format!("解出！将死：{}被将军，无着可应", side(lang, c))
        }
        (Lang::En, Ending::Checkmated(c)) => {
            format!(
                "solved: checkmate: {} is in check with no move",
                side(lang, c)
            )
        }
        (Lang::Zh, Ending::Stalemated(c)) => {
            format!(
                "解出！困毙：{}未被将军，却已无着可走（判负）",
                side(lang, c)
            )
        }
        (Lang::En, Ending::Stalemated(c)) => format!(
            "solved: stalemate: {} is not in check but has no move, which loses",
            side(lang, c)
        ),
        (Lang::Zh, Ending::Repetition) => {
            "失败：同一局面第三次出现，双方均非长打，按棋规不变作和，未能取胜".to_string()
        }
        (Lang::En, Ending::Repetition) => "failed: the same position came a third time with neither side attacking perpetually: a draw by repetition, the win not reached".to_string(),
        (Lang::Zh, Ending::DrawHolds) => "解出！和棋守住了".to_string(),
        (Lang::En, Ending::DrawHolds) => "solved: the draw holds".to_string(),
        (Lang::Zh, Ending::DefenceWins(c)) => format!("失败：{}已无着可走", side(lang, c)),
        (Lang::En, Ending::DefenceWins(c)) => {
            format!("failed: {} has no move left", side(lang, c))
        }
        (Lang::Zh, Ending::PerpetualCheck(c)) => {
            format!(
                "解出！长将作负：{}只剩长将的着法，必须变着而无着可变",
                side(lang, c)
            )
        }
        (Lang::Zh, Ending::PerpetualAttack(c)) => {
            format!(
                "解出！长打作负：{}只剩长将、长杀或长捉的着法，必须变着而无着可变",
                side(lang, c)
            )
        }
        (Lang::En, Ending::PerpetualAttack(c)) => format!(
            "solved: {} could only go on checking, threatening mate or chasing perpetually, which the rule forbids: perpetual attack loses",
            side(lang, c)
        ),
        (Lang::En, Ending::PerpetualCheck(c)) => format!(
            "solved: {} could only go on checking perpetually, which the rule forbids: perpetual check loses",
            side(lang, c)
        ),
    }
}

/// A hint.
pub fn hint(lang: Lang, h: &Hint) -> String {
    match (lang, h) {
        (Lang::Zh, Hint::TakeBackFirst) => "提示：先悔掉错着（悔棋）".to_string(),
        (Lang::En, Hint::TakeBackFirst) => "hint: take the mistake back first (undo)".to_string(),
        (
            Lang::Zh,
            Hint::Piece {
                piece,
                file,
                square,
            },
        ) => format!("提示：走{file}路{}（{square}）", piece.chinese()),
        (
            Lang::En,
            Hint::Piece {
                piece,
                file,
                square,
            },
        ) => {
            // WXF's file number: counted from the mover's right, as the Chinese word is
            let _ = file;
            let f = square.file().index() as u32;
            let n = match piece.color {
                Color::Red => 9 - f,
                Color::Black => f + 1,
            };
            format!(
                "hint: move the {} on {square} (file {n})",
                piece.kind.name()
            )
        }
        (Lang::Zh, Hint::Move(m)) => format!("提示：{}", m.chinese),
        (Lang::En, Hint::Move(m)) => format!("hint: {}", m.wxf),
        (Lang::Zh, Hint::Lost) => "提示：此处已无着法能达成目标（悔棋）".to_string(),
        (Lang::En, Hint::Lost) => "hint: no move keeps the goal from here (undo)".to_string(),
    }
}

/// The solution from here: "答案：帅五进一 士５进６ …", "solution: K5+1 A4+5 …" (WXF in
/// English), or that no move keeps the goal.
pub fn solution(lang: Lang, line: &[Named]) -> String {
    if line.is_empty() {
        return lang
            .pick(
                "答案：此处已无着法能达成目标（悔棋）",
                "solution: no move keeps the goal from here (undo)",
            )
            .to_string();
    }
    let moves: Vec<&str> = line.iter().map(|m| m.text(lang)).collect();
    match lang {
        Lang::Zh => format!("答案：{}", moves.join(" ")),
        Lang::En => format!("solution: {}", moves.join(" ")),
    }
}

/// A wait as a player reads it: "10分钟后" / "in 10 minutes", "3天后" / "in 3 days".
pub fn wait(lang: Lang, secs: u64) -> String {
    let (n, zh, en) = if secs < 3_600 {
        (secs.div_ceil(60), "分钟", "minute")
    } else if secs < 86_400 {
        (secs.div_ceil(3_600), "小时", "hour")
    } else {
        (secs.div_ceil(86_400), "天", "day")
    };
    match lang {
        Lang::Zh => format!("{n}{zh}后"),
        Lang::En if n == 1 => format!("in 1 {en}"),
        Lang::En => format!("in {n} {en}s"),
    }
}

/// What was recorded of an attempt: how it ended, both ratings after it, and when the
/// puzzle comes back (`review`: seconds from now) if it is under review.
pub fn recorded(
    lang: Lang,
    finish: super::progress::Finish,
    recorded: &super::progress::Recorded,
    puzzle: i32,
    review: Option<u64>,
) -> String {
    use super::progress::Finish;
    let kind = match finish {
        Finish::Clean => lang.pick("独立解出", "solved clean"),
        Finish::Helped => lang.pick("借助提示或答案", "with help (a hint or the solution)"),
        Finish::Failed => lang.pick("未解出", "failed"),
    };
    let player = recorded.player_after.shown();
    if recorded.practice {
        return match lang {
            Lang::Zh => format!(
                "练习：{kind}（此题已有记录，尚未到复习时间：等级分与复习安排不变）；你的等级分 {player}"
            ),
            Lang::En => format!(
                "practice: {kind} (a replay before its review is due: rating and review unchanged); your rating {player}"
            ),
        };
    }
    let change = rating_change(recorded.change());
    let back = review.map(|s| wait(lang, s));
    match (lang, back) {
        (Lang::Zh, Some(w)) => {
            format!("记录：{kind}；你的等级分 {player}（{change}），本题 {puzzle}；{w}复习")
        }
        (Lang::Zh, None) => format!("记录：{kind}；你的等级分 {player}（{change}），本题 {puzzle}"),
        (Lang::En, Some(w)) => format!(
            "recorded: {kind}; your rating {player} ({change}), this puzzle {puzzle}; back for review {w}"
        ),
        (Lang::En, None) => {
            format!("recorded: {kind}; your rating {player} ({change}), this puzzle {puzzle}")
        }
    }
}

/// A rating change as lichess shows it: `+12`, `−8` (a minus sign), `±0`.
pub fn rating_change(change: i32) -> String {
    match change {
        0 => "±0".to_string(),
        c if c > 0 => format!("+{c}"),
        c => format!("−{}", c.unsigned_abs()),
    }
}

/// How an attempt ended, as the record counts it: [`ending`], except that a goal reached
/// after a mistake taken back (not `clean`) is no "solved": the puzzle counts as failed.
pub fn finished(lang: Lang, e: Ending, clean: bool) -> String {
    let s = ending(lang, e);
    if clean {
        return s;
    }
    match lang {
        Lang::Zh => s.replacen("解出！", "走完（悔棋前有错着，此题记为未解出）：", 1),
        Lang::En => s.replacen(
            "solved: ",
            "finished after a mistake taken back (the puzzle counts as failed): ",
            1,
        ),
    }
}

/// "2nd", "3rd", "4th".
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Why a move text was not taken, in the trainer's language: in English the notation's own
/// words; in Chinese the same reasons, worked out again on the position (`pos`, where the
/// text was typed).
pub fn move_error(
    lang: Lang,
    pos: &crate::game::position::Position,
    e: &crate::notation::NotationError,
) -> String {
    use crate::notation::Reason as R;
    if lang == Lang::En {
        return e.to_string();
    }
    let text = &e.text;
    let us = pos.turn();
    let why = match &e.reason {
        R::Unreadable => {
            "不是着法：可用中文记谱（炮二平五）、WXF（C2.5）或 ICCS（h2e2）".to_string()
        }
        R::UnknownPiece(p) => format!("「{p}」不是棋子"),
        R::NoSuchPiece(_) => match crate::notation::iccs::parse(text.trim()) {
            Some(m) => format!("{} 上没有棋子", m.from()),
            None => format!("{}没有这个棋子", side(lang, us)),
        },
        R::Illegal(_) => match crate::notation::iccs::parse(text.trim()) {
            Some(m) => illegal_zh(pos, m),
            None => "此处不合规则，不能这样走".to_string(),
        },
        R::Ambiguous(moves) => format!("有歧义，可能是 {}", moves.join("、")),
    };
    format!("「{text}」：{why}")
}

/// Why the move `m` (its piece standing where it starts) is not legal here, in Chinese.
fn illegal_zh(pos: &crate::game::position::Position, m: crate::game::moves::Move) -> String {
    let us = pos.turn();
    let Some(piece) = pos.piece_at(m.from()) else {
        return format!("{} 上没有棋子", m.from());
    };
    if piece.color != us {
        return format!(
            "{} 上是{}的棋子，现在轮到{}走",
            m.from(),
            side(Lang::Zh, piece.color),
            side(Lang::Zh, us)
        );
    }
    let mut pseudo = crate::game::moves::MoveList::new();
    pos.pseudo_moves(&mut pseudo);
    if !pseudo.contains(&m) {
        return format!("{} 上的{}不能走到 {}", m.from(), piece.chinese(), m.to());
    }
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.generals_facing() {
        "走后将帅照面（白脸将），不合规则".to_string()
    } else if pos.is_check() {
        "没有应将".to_string()
    } else {
        "走后己方将帅被将".to_string()
    }
}

/// A collection's name (the stem of its file) in the language: 实战杀局, "Mates from
/// games"; a collection canju does not ship keeps its own name.
pub fn collection(lang: Lang, name: &str) -> String {
    let (zh, en) = match name {
        "endgames" => ("实用残局", "Practical endgames"),
        "mates" => ("实战杀局", "Mates from games"),
        "patterns" => ("杀法", "Mating patterns"),
        "compositions" => ("古谱排局", "Compositions"),
        "checks" => ("连将杀", "Mates by checks"),
        "shiqingyaqu" => ("适情雅趣", "Shiqing Yaqu"),
        "lanke" => ("烂柯神机", "Lanke Shenji"),
        other => return other.to_string(),
    };
    lang.pick(zh, en).to_string()
}

/// A Chinese numeral of 1 to 99 (五, 十二, 二十五), as titles and tags count.
pub(crate) fn chinese_number(s: &str) -> Option<u32> {
    let digit = |c: char| {
        "一二三四五六七八九"
            .chars()
            .position(|d| d == c)
            .map(|i| i as u32 + 1)
    };
    let c: Vec<char> = s.chars().collect();
    match c.as_slice() {
        ['两'] => Some(2),
        [d] if *d != '十' => digit(*d),
        ['十'] => Some(10),
        ['十', u] => Some(10 + digit(*u)?),
        [t, '十'] => Some(10 * digit(*t)?),
        [t, '十', u] => Some(10 * digit(*t)? + digit(*u)?),
        _ => None,
    }
}

/// A puzzle's tag in the language: in English the pieces, the kinds of mate and the
/// collections by their English names ("mate in 5", "chariot"); a tag canju has no English
/// for stays as written.
pub fn tag(lang: Lang, tag: &str) -> String {
    if lang == Lang::Zh {
        return tag.to_string();
    }
    for (ending, what) in [("步杀", "mate in"), ("步困毙", "stalemate in")] {
        if let Some(n) = tag.strip_suffix(ending).and_then(chinese_number) {
            return format!("{what} {n}");
        }
    }
    let en = match tag {
        "车" => "chariot",
        "马" => "horse",
        "炮" => "cannon",
        "兵" | "卒" => "soldier",
        "仕" | "士" => "advisor",
        "相" | "象" => "elephant",
        "帅" | "将" => "general",
        "连将杀" => "mate by checks",
        "胜法" => "winning method",
        "守和" => "holding the draw",
        "防守反击" => "counter-attack",
        "马后炮" => "horse behind the cannon",
        "铁门栓" => "iron bolt",
        "重炮" => "double cannons",
        "白脸将" => "facing generals",
        "卧槽马" => "horse at the corner",
        "马兵对士象全" => "KNPKAABB",
        "马兵对单缺象" => "KNPKAAB",
        "车对马双士" => "KRKNAA",
        "炮仕胜双士" => "KCAKAA",
        "单马胜单士" => "KNKA",
        "单车对士象全" => "KRKAABB",
        "适情雅趣" | "shiqingyaqu" => "Shiqing Yaqu",
        "烂柯神机" | "lanke" => "Lanke Shenji",
        "实战杀局" => "Mates from games",
        "实用残局" => "Practical endgames",
        other => other,
    };
    en.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_numbers_and_tags_read_as_players_write_them() {
        for (text, n) in [
            ("一", 1),
            ("两", 2),
            ("十", 10),
            ("十二", 12),
            ("二十", 20),
            ("二十五", 25),
        ] {
            assert_eq!(chinese_number(text), Some(n), "{text}");
        }
        for text in ["", "十十", "零", "百", "一二"] {
            assert_eq!(chinese_number(text), None, "{text}");
        }
        assert_eq!(tag(Lang::En, "二十五步杀"), "mate in 25");
        assert_eq!(tag(Lang::En, "一步困毙"), "stalemate in 1");
        assert_eq!(tag(Lang::En, "车"), "chariot");
        assert_eq!(tag(Lang::Zh, "车"), "车");
        assert_eq!(collection(Lang::En, "lanke"), "Lanke Shenji");
        assert_eq!(collection(Lang::Zh, "mine"), "mine");
    }

    #[test]
    fn languages_read_and_print() {
        for (text, lang) in [("zh", Lang::Zh), ("EN", Lang::En), ("中文", Lang::Zh)] {
            assert_eq!(text.parse::<Lang>().unwrap(), lang);
        }
        assert_eq!(Lang::En.to_string().parse::<Lang>().unwrap(), Lang::En);
        let e = "fr".parse::<Lang>().unwrap_err();
        assert!(e.to_string().contains("expected zh"), "{e}");
    }

    #[test]
    fn moves_are_counted_as_players_count_them() {
        assert_eq!(moves_of_plies(1), 1);
        assert_eq!(moves_of_plies(5), 3);
        assert_eq!(moves_of_plies(6), 3);
        assert_eq!(moves(Lang::En, 1), "1 move");
        assert_eq!(moves(Lang::Zh, 12), "12步");
        let g: Goal = "红先胜".parse().unwrap();
        assert_eq!(goal(Lang::Zh, g, Some(3), false, false), "红先胜（限3步）");
        assert_eq!(
            goal(Lang::En, g, Some(1), true, false),
            "red to move and win within 1 move, checking with every move"
        );
    }

    #[test]
    fn a_mistake_says_what_was_lost() {
        let g: Goal = "红先胜".parse().unwrap();
        let played = |now| Played {
            mv: Named {
                chinese: "车二进六".into(),
                wxf: "R2+6".into(),
            },
            feedback: Feedback::Mistake,
            now,
            reason: None,
            refutation: Some(Named {
                chinese: "将５平４".into(),
                wxf: "K5.4".into(),
            }),
            defence: None,
            ending: None,
            repeats: 0,
        };
        let t = judgement(Lang::En, g, &played(Outlook::Draw));
        assert!(
            t.contains("the win is gone: now a draw (with best play)"),
            "{t}"
        );
        let t = judgement(Lang::En, g, &played(Outlook::Loss(45)));
        assert!(t.contains("now it loses: mated in 23 moves"), "{t}");
        let t = judgement(Lang::Zh, g, &played(Outlook::Loss(45)));
        assert!(t.contains("胜势已失，反而要输：对方23步杀"), "{t}");
        assert!(!t.contains("plies"));
        // a loss by rule, in words true of both rule sets that judge repetitions (the
        // reason that follows names the rule)
        let t = judgement(Lang::Zh, g, &played(Outlook::RuleLoss(2)));
        assert!(t.contains("胜势已失，反而要输：按棋例判负"), "{t}");
        let t = judgement(Lang::En, g, &played(Outlook::RuleLoss(2)));
        assert!(
            t.contains("the win is gone: now it loses by the repetition rule"),
            "{t}"
        );
        let slow = Played {
            feedback: Feedback::Good { slower: 2 },
            ..played(Outlook::Win(20))
        };
        assert!(judgement(Lang::En, g, &slow).contains("still wins, 2 moves slower"));
        // still a win, beyond the stipulated moves; no win proven within them; a win by
        // the rule alone: never "the win is gone"
        let t = judgement(Lang::En, g, &played(Outlook::Win(4)));
        assert!(
            t.contains("mistake: still wins, but not within the moves left: mate in 2 moves now"),
            "{t}"
        );
        let t = judgement(Lang::Zh, g, &played(Outlook::Win(4)));
        assert!(
            t.contains("错着，仍能取胜，但已超出限定步数：现在还要2步杀"),
            "{t}"
        );
        for now in [Outlook::Win(4), Outlook::NoWin, Outlook::RuleWin(1)] {
            for lang in [Lang::En, Lang::Zh] {
                let t = judgement(lang, g, &played(now));
                assert!(!t.contains("win is gone") && !t.contains("胜势已失"), "{t}");
            }
        }
    }

    /// One language a line: English lines name moves in WXF and hold no Chinese character;
    /// Chinese lines name them in Chinese notation, red's files 一..九, black's １..９.
    #[test]
    fn each_line_keeps_to_its_language() {
        let pos: crate::Position = "3k1a3/4a4/9/9/2N6/9/9/9/9/4K1C2 w".parse().unwrap();
        let m = crate::notation::parse_move(&pos, "e0e1").unwrap();
        let general = Named::of(&pos, m);
        assert_eq!(
            (general.chinese.as_str(), general.wxf.as_str()),
            ("帅五进一", "K5+1")
        );
        let mut after = pos.clone();
        after.play_unchecked(m);
        let r = crate::notation::parse_move(&after, "e8f7").unwrap();
        let advisor = Named::of(&after, r);
        assert_eq!(
            (advisor.chinese.as_str(), advisor.wxf.as_str()),
            ("士５进６", "A5+6")
        );
        let g: Goal = "红先胜".parse().unwrap();
        let best = Played {
            mv: general,
            feedback: Feedback::Best,
            now: Outlook::Win(4),
            reason: None,
            refutation: None,
            defence: Some(advisor.clone()),
            ending: None,
            repeats: 0,
        };
        let han = |t: &str| t.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
        let english = [
            judgement(Lang::En, g, &best),
            reply(Lang::En, g, Color::Black, &advisor),
            solution(Lang::En, &[best.mv.clone(), advisor.clone()]),
            hint(Lang::En, &Hint::Move(best.mv.clone())),
        ];
        assert_eq!(english[0], "K5+1: best: mate in 2 moves more");
        assert_eq!(english[1], "black defends: A5+6");
        for t in &english {
            assert!(!han(t), "a Chinese character in an English line: {t}");
        }
        assert_eq!(judgement(Lang::Zh, g, &best), "帅五进一：最佳，还有2步杀");
        assert_eq!(
            reply(Lang::Zh, g, Color::Black, &advisor),
            "黑方应着：士５进６"
        );
        let draw: Goal = "红先和".parse().unwrap();
        assert_eq!(
            reply(Lang::En, draw, Color::Black, &advisor),
            "black attacks: A5+6"
        );
    }
}
