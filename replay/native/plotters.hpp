// plotters (RULES.md section 1, replay/games/plotters.py): the rest of one round.
//
// Every game of the native engine has this shape (solver.hpp is written against it):
//   State, Undo                          the position; what `make` saves for `unmake`
//   parse(numbers) / numbers(state)      the position as the game module's encoder writes it
//   status, mover, choices, legal        whose decision; the mover's moves (Python's
//                                        `choices()`, in its order); every legal move
//   make / unmake                        a move played and taken back
//   chance_outcomes / chance_draw        a chance event: its outcomes, or one drawn
//   scores                               the round's scores once it is over
//   heuristic                            the greedy bot's score of a move (GameInfo.heuristic)
//   merge                                the mover's moves with equivalent ones merged (solver)
//   table_point / key                    where the transposition table is asked, and the key
//   bound                                an optimistic round score of a seat (pruning)
//   winners                              the last finished trick's winners (differential test)
// Cards are numbered as the game's CardTable numbers them (Card.index).
#pragma once

#include "common.hpp"

namespace tl {

struct Plotters {
    static constexpr const char* NAME = "plotters";
    static constexpr int SIGN = 1;  // the highest total wins
    static constexpr int MAX_N = 6;
    enum Phase : uint8_t { PLAY = 0, TAKE = 1, KEEP = 2, OVER = 3 };

    static int colour(int card) { return card / 21; }
    static int value(int card) { return card % 21 + 1; }
    static int card_of(int c, int v) { return c * 21 + v - 1; }

    // The scalars and small arrays, saved whole by `make` (a few dozen bytes); the hands
    // change bit by bit.
    struct Core {
        uint8_t phase = PLAY;
        int8_t turn = 0, leader = 0, trick_no = 0, first_winner = -1, second_winner = -1;
        int8_t trick_len = 0;
        uint8_t trick_colours = 0;  // bit per colour
        int8_t trick_seat[MAX_N] = {};
        uint8_t trick_card[MAX_N] = {};
        uint8_t open[MAX_N][4] = {};
        uint8_t discards[MAX_N] = {};
        uint8_t kept[MAX_N] = {};  // the two kept colours as bits; 0: none kept yet
        int8_t owed[2] = {-1, -1};  // players who must keep two colours, in order
        int8_t owed_len = 0;
        int8_t early = -1;  // the player who could not play (an early end)
        int8_t last_first = -1, last_second = -1;  // the last finished trick's winners
    };
    struct State {
        int n = 4, pick = 2;
        uint32_t hand[MAX_N][4] = {};  // per colour, bit v-1
        Core core;
    };
    struct Undo {
        Core core;
    };

    static State parse(const std::vector<int64_t>& v) {
        Reader r(v, NAME);
        State st;
        st.n = int(r.next(4, 6, "the number of players"));
        int n = st.n;
        st.pick = (n + 1) / 2;
        Core& c = st.core;
        c.phase = uint8_t(r.next(0, 3, "the phase"));
        c.turn = int8_t(r.next(0, n - 1, "the turn"));
        c.leader = int8_t(r.next(0, n - 1, "the leader"));
        c.trick_no = int8_t(r.next(0, 14, "the tricks played"));
        c.first_winner = int8_t(r.next(-1, n - 1, "the first winner"));
        c.second_winner = int8_t(r.next(-1, n - 1, "the second winner"));
        for (int s = 0; s < n; ++s)
            for (int k = 0; k < 4; ++k) st.hand[s][k] = uint32_t(r.next(0, (1 << 21) - 1, "a hand"));
        c.trick_len = int8_t(r.next(0, n, "the trick's length"));
        for (int i = 0; i < c.trick_len; ++i) {
            c.trick_seat[i] = int8_t(r.next(0, n - 1, "a trick's seat"));
            c.trick_card[i] = uint8_t(r.next(0, 83, "a trick's card"));
            c.trick_colours |= uint8_t(1 << colour(c.trick_card[i]));
        }
        for (int s = 0; s < n; ++s) {
            for (int k = 0; k < 4; ++k) c.open[s][k] = uint8_t(r.next(0, 84, "an open stack"));
            c.discards[s] = uint8_t(r.next(0, 84, "a discard pile"));
            c.kept[s] = uint8_t(r.next(0, 15, "the kept colours"));
        }
        c.owed_len = int8_t(r.next(0, 2, "the keeps owed"));
        for (int i = 0; i < c.owed_len; ++i) c.owed[i] = int8_t(r.next(0, n - 1, "a keep owed"));
        r.done();
        if (c.phase == TAKE && (c.trick_len != n || c.first_winner < 0))
            throw std::invalid_argument("plotters position: a take is due but the trick is not full");
        if (c.phase == KEEP && c.owed_len == 0)
            throw std::invalid_argument("plotters position: a keep is due but nobody owes one");
        return st;
    }

    static std::vector<int64_t> numbers(const State& st) {
        const Core& c = st.core;
        int n = st.n;
        std::vector<int64_t> v{n, c.phase, c.turn, c.leader, c.trick_no, c.first_winner, c.second_winner};
        for (int s = 0; s < n; ++s)
            for (int k = 0; k < 4; ++k) v.push_back(st.hand[s][k]);
        v.push_back(c.trick_len);
        for (int i = 0; i < c.trick_len; ++i) {
            v.push_back(c.trick_seat[i]);
            v.push_back(c.trick_card[i]);
        }
        for (int s = 0; s < n; ++s) {
            for (int k = 0; k < 4; ++k) v.push_back(c.open[s][k]);
            v.push_back(c.discards[s]);
            v.push_back(c.kept[s]);
        }
        v.push_back(c.owed_len);
        for (int i = 0; i < c.owed_len; ++i) v.push_back(c.owed[i]);
        return v;
    }

    static Status status(const State& st) { return st.core.phase == OVER ? tl::OVER : DECIDE; }

    static int mover(const State& st) {
        const Core& c = st.core;
        switch (c.phase) {
            case PLAY: return c.turn;
            case TAKE: return c.first_winner;
            case KEEP: return c.owed[0];
            default: return -1;
        }
    }

    static bool fits(const Core& c, int col) {
        return __builtin_popcount(c.trick_colours) < 3 || (c.trick_colours >> col & 1);
    }

    static void keeps_of(const State& st, int s, MoveList& out) {
        const uint8_t* op = st.core.open[s];
        for (int i = 0; i < 4; ++i)
            for (int j = i + 1; j < 4; ++j)
                if (op[i] && op[j]) out.add(make_move(KEEP_MOVE, s, (1u << i) | (1u << j)));
    }
    static constexpr uint32_t PLAY_MOVE = tl::PLAY, TAKE_MOVE = tl::TAKE, KEEP_MOVE = tl::KEEP;

    static void choices(const State& st, MoveList& out) {
        out.clear();
        const Core& c = st.core;
        if (c.phase == PLAY) {
            int s = c.turn;
            for (int col = 0; col < 4; ++col) {
                if (!fits(c, col)) continue;
                for (uint32_t m = st.hand[s][col]; m; m &= m - 1)
                    out.add(make_move(PLAY_MOVE, s, uint32_t(card_of(col, lowest_bit(m) + 1))));
            }
        } else if (c.phase == TAKE) {
            // itertools.combinations(trick, pick): position sets in lexicographic order
            int n = st.n, k = st.pick;
            int idx[MAX_N];
            for (int i = 0; i < k; ++i) idx[i] = i;
            while (true) {
                uint32_t mask = 0;
                for (int i = 0; i < k; ++i) mask |= 1u << idx[i];
                out.add(make_move(TAKE_MOVE, c.first_winner, mask));
                int i = k - 1;
                while (i >= 0 && idx[i] == n - k + i) --i;
                if (i < 0) break;
                ++idx[i];
                for (int j = i + 1; j < k; ++j) idx[j] = idx[j - 1] + 1;
            }
        } else if (c.phase == KEEP) {
            keeps_of(st, c.owed[0], out);
        }
    }

    static void legal(const State& st, MoveList& out) {
        const Core& c = st.core;
        if (c.phase == KEEP) {  // either owed player may choose first
            out.clear();
            for (int i = 0; i < c.owed_len; ++i) keeps_of(st, c.owed[i], out);
            return;
        }
        choices(st, out);
    }

    static void decide_trick(State& st) {
        Core& c = st.core;
        int led = colour(c.trick_card[0]);
        int top = -1, first = -1;
        for (int i = 0; i < c.trick_len; ++i) {
            int card = c.trick_card[i];
            if (colour(card) == led && value(card) > top) {
                top = value(card);
                first = c.trick_seat[i];
            }
        }
        int best = 99, second = -1;
        for (int i = 0; i < c.trick_len; ++i) {  // the first played of equal lowest values
            int card = c.trick_card[i];
            if (colour(card) != led && value(card) < best) {
                best = value(card);
                second = c.trick_seat[i];
            }
        }
        c.first_winner = int8_t(first);
        c.second_winner = int8_t(second);
        c.phase = TAKE;
    }

    static void collect(Core& c, int s, int col) {
        if (c.kept[s] == 0 || (c.kept[s] >> col & 1))
            ++c.open[s][col];
        else
            ++c.discards[s];
    }

    static void after_trick(State& st) {
        Core& c = st.core;
        const uint32_t* h = st.hand[c.turn];
        c.phase = (h[0] | h[1] | h[2] | h[3]) ? PLAY : OVER;
    }

    static void make(State& st, Move m, Undo& u) {
        u.core = st.core;
        Core& c = st.core;
        int s = move_seat(m);
        uint32_t p = move_payload(m);
        switch (move_type(m)) {
            case PLAY_MOVE: {
                int card = int(p), col = colour(card);
                st.hand[s][col] &= ~(1u << (value(card) - 1));
                c.trick_seat[c.trick_len] = int8_t(s);
                c.trick_card[c.trick_len] = uint8_t(card);
                ++c.trick_len;
                c.trick_colours |= uint8_t(1 << col);
                if (c.trick_len == st.n) {
                    decide_trick(st);
                    return;
                }
                int next = (s + 1) % st.n;
                c.turn = int8_t(next);
                if (__builtin_popcount(c.trick_colours) == 3) {
                    bool can = false;
                    for (int k = 0; k < 4; ++k)
                        if ((c.trick_colours >> k & 1) && st.hand[next][k]) can = true;
                    if (!can) {  // the next player holds only the fourth colour: an early end
                        c.early = int8_t(next);
                        c.phase = OVER;
                    }
                }
                return;
            }
            case TAKE_MOVE: {
                int first = c.first_winner, second = c.second_winner;
                c.owed_len = 0;
                for (int i = 0; i < c.trick_len; ++i) {
                    int col = colour(c.trick_card[i]);
                    if (p >> i & 1)
                        collect(c, first, col);
                    else if (second >= 0)
                        collect(c, second, col);
                }
                for (int who : {first, second}) {
                    if (who < 0) continue;
                    const uint8_t* op = c.open[who];
                    if (c.kept[who] == 0 && op[0] && op[1] && op[2] && op[3]) c.owed[c.owed_len++] = int8_t(who);
                }
                int next = second >= 0 ? second : first;
                ++c.trick_no;
                c.trick_len = 0;
                c.trick_colours = 0;
                c.leader = c.turn = int8_t(next);
                c.last_first = int8_t(first);
                c.last_second = int8_t(second);
                if (c.owed_len)
                    c.phase = KEEP;
                else
                    after_trick(st);
                return;
            }
            case KEEP_MOVE: {
                uint8_t* op = c.open[s];
                for (int k = 0; k < 4; ++k) {
                    if (!(p >> k & 1)) {
                        c.discards[s] = uint8_t(c.discards[s] + op[k]);
                        op[k] = 0;
                    }
                }
                c.kept[s] = uint8_t(p);
                if (c.owed[0] == s) c.owed[0] = c.owed[1];
                c.owed[1] = -1;
                --c.owed_len;
                if (c.owed_len == 0) after_trick(st);
                return;
            }
            default:
                throw std::invalid_argument("plotters: not a plotters move");
        }
    }

    static void unmake(State& st, Move m, const Undo& u) {
        if (move_type(m) == PLAY_MOVE) {
            int card = int(move_payload(m));
            st.hand[move_seat(m)][colour(card)] |= 1u << (value(card) - 1);
        }
        st.core = u.core;
    }

    static void chance_outcomes(const State&, ChanceList& out) { out.clear(); }
    static Move chance_draw(const State&, Rng&) { throw std::logic_error("plotters has no chance event in a round"); }

    static int score_of(const uint8_t* op, int discards) {
        int first = -1, second = -1, held = 0, total = 0;
        for (int i = 0; i < 4; ++i) {
            int k = op[i];
            if (!k) continue;
            ++held;
            total += k;
            if (first < 0 || k > op[first]) {
                second = first;
                first = i;
            } else if (second < 0 || k > op[second]) {
                second = i;
            }
        }
        if (held < 2) return 0;
        int a = op[first], b = op[second];
        int others = total - a - b + discards;
        return others == 0 ? a * b : a * b / others;
    }

    static void scores(const State& st, Scores& out) {
        out.fill(0.0);
        for (int s = 0; s < st.n; ++s) out[s] = score_of(st.core.open[s], st.core.discards[s]);
    }

    // ------------------------------------------------------------ the greedy bot
    static uint8_t targets(const State& st, int s) {
        const Core& c = st.core;
        if (c.kept[s]) return c.kept[s];
        int first = -1, second = -1;
        auto key_gt = [&](int i, int j) {  // (open, held) of colour i > that of colour j
            int oi = c.open[s][i], oj = c.open[s][j];
            if (oi != oj) return oi > oj;
            return __builtin_popcount(st.hand[s][i]) > __builtin_popcount(st.hand[s][j]);
        };
        for (int i = 0; i < 4; ++i) {
            if (first < 0 || key_gt(i, first)) {
                second = first;
                first = i;
            } else if (second < 0 || key_gt(i, second)) {
                second = i;
            }
        }
        return uint8_t((1 << first) | (1 << second));
    }

    // What the greedy bot's scores of one decision share: the mover's two target colours
    // and the trick so far (the best of the led colour, the lowest of the others, how many of
    // its cards are of the target colours).
    struct Context {
        uint8_t want;
        int led, best_led, lowest, wanted;
    };
    static Context context(const State& st, int s) {
        const Core& c = st.core;
        Context x{targets(st, s), -1, -1, 99, 0};
        if (c.trick_len == 0) return x;
        x.led = colour(c.trick_card[0]);
        for (int i = 0; i < c.trick_len; ++i) {
            int tc = c.trick_card[i];
            if (colour(tc) == x.led) x.best_led = std::max(x.best_led, value(tc));
            else x.lowest = std::min(x.lowest, value(tc));
            if (x.want >> colour(tc) & 1) ++x.wanted;
        }
        return x;
    }
    // plotters.heuristic: collect two colours; win the first pick with a high card of the led
    // colour, else dump a high card of an unwanted colour and stay out of the second winner's
    // seat unless the leftovers are wanted; pick the wanted colours; keep the largest stacks.
    static double score(const State& st, const Context& x, Move m) {
        const Core& c = st.core;
        int s = move_seat(m);
        uint32_t p = move_payload(m);
        if (move_type(m) == KEEP_MOVE) {
            int sum = 0;
            for (int k = 0; k < 4; ++k)
                if (p >> k & 1) sum += c.open[s][k];
            return sum;
        }
        if (move_type(m) == TAKE_MOVE) {
            int sum = 0;
            for (int i = 0; i < c.trick_len; ++i)
                if (p >> i & 1) sum += (x.want >> colour(c.trick_card[i]) & 1) ? 3 : -2;
            return sum;
        }
        int card = int(p), col = colour(card), v = value(card);
        bool wanted_colour = x.want >> col & 1;
        if (c.trick_len == 0) return wanted_colour ? double(50 + v) : v / 10.0;
        if (col == x.led) {
            if (v > x.best_led) return double(60 + 5 * x.wanted) - v / 10.0;
            return 30.0 - v / 10.0;
        }
        if (v < x.lowest) return double(10 * x.wanted - 20);
        return (20.0 + v / 10.0) + (wanted_colour ? 0.0 : 10.0);
    }
    static void scores_of(const State& st, const MoveList& moves, double* out) {
        if (moves.size == 0) return;
        Context x = context(st, move_seat(moves.moves[0]));
        for (int i = 0; i < moves.size; ++i) out[i] = score(st, x, moves.moves[i]);
    }
    static double heuristic(const State& st, Move m) { return score(st, context(st, move_seat(m)), m); }

    // ------------------------------------------------------------ the solver's parts
    // Two cards of one colour in the mover's hand are equivalent when no other card still
    // in play (any hand, the trick) has a value between theirs or equal to one of them: the
    // trick's two comparisons (highest of the led colour, lowest of the others, equal values
    // going to the first played) and the stacks treat them alike. Takes are equivalent when
    // their picks hold the same colours.
    static void merge(const State& st, const MoveList& in, MoveList& out) {
        out.clear();
        const Core& c = st.core;
        if (c.phase == PLAY) {
            int count[23] = {};
            for (int s = 0; s < st.n; ++s)
                for (int k = 0; k < 4; ++k)
                    for (uint32_t m = st.hand[s][k]; m; m &= m - 1) ++count[lowest_bit(m) + 1];
            for (int i = 0; i < c.trick_len; ++i) ++count[value(c.trick_card[i])];
            int i = 0;
            while (i < in.size) {
                int card = int(move_payload(in.moves[i]));
                int col = colour(card), lo = value(card);
                int j = i + 1, inside = count[lo];
                int hi = lo;
                while (j < in.size) {
                    int nxt = int(move_payload(in.moves[j]));
                    if (colour(nxt) != col) break;
                    int w = value(nxt);
                    int between = 0;
                    for (int x = hi + 1; x <= w; ++x) between += count[x];
                    if (inside + between != (j - i) + 1) break;  // another card lies in between
                    inside += between;
                    hi = w;
                    ++j;
                }
                out.add(in.moves[i], j - i);
                i = j;
            }
        } else if (c.phase == TAKE) {
            uint32_t seen[64];
            int at[64];
            int k = 0;
            for (int i = 0; i < in.size; ++i) {
                uint32_t p = move_payload(in.moves[i]), sig = 0;
                for (int x = 0; x < c.trick_len; ++x)
                    if (p >> x & 1) sig += 1u << (4 * colour(c.trick_card[x]));
                int found = -1;
                for (int y = 0; y < k; ++y)
                    if (seen[y] == sig) found = y;
                if (found < 0) {
                    seen[k] = sig;
                    at[k] = out.size;
                    ++k;
                    out.add(in.moves[i], 1);
                } else {
                    ++out.weight[at[found]];
                }
            }
        } else {
            for (int i = 0; i < in.size; ++i) out.add(in.moves[i], in.weight[i]);
        }
    }

    static int cards_left(const State& st) {
        int k = 0;
        for (int s = 0; s < st.n; ++s)
            for (int c = 0; c < 4; ++c) k += popcount(st.hand[s][c]);
        return k;
    }

    static bool table_point(const State& st) { return st.core.phase == PLAY && st.core.trick_len == 0; }

    static uint64_t key(const State& st) {
        Hasher h;
        const Core& c = st.core;
        h.add(uint64_t(c.turn) | uint64_t(st.n) << 8);
        for (int s = 0; s < st.n; ++s) {
            h.add(uint64_t(st.hand[s][0]) | uint64_t(st.hand[s][1]) << 32);
            h.add(uint64_t(st.hand[s][2]) | uint64_t(st.hand[s][3]) << 32);
            uint64_t stacks = 0;
            std::memcpy(&stacks, c.open[s], 4);
            h.add(stacks | uint64_t(c.discards[s]) << 32 | uint64_t(c.kept[s]) << 40);
        }
        return h.value();
    }

    static double bound(const State&, int) { return 1e300; }  // none cheap enough to help

    static std::vector<int> winners(const State& st) {
        return {st.core.last_first, st.core.last_second};
    }
};

}  // namespace tl
