// under_the_radar (RULES.md section 4, replay/games/under_the_radar.py): the rest of one round.
// The shape of a game is described in plotters.hpp.
//
// Cards as the game numbers them: the nine Singles 0-8 (category-major: pattern filled,
// hollow, partial; colour red, green, blue; shape triangle, square, circle), then the 27
// Completes 9 + 9 * pattern + 3 * colour + shape.
#pragma once

#include "common.hpp"

namespace tl {

struct UnderTheRadar {
    static constexpr const char* NAME = "under_the_radar";
    static constexpr int SIGN = -1;  // the lowest total wins
    static constexpr int MAX_N = 7;
    enum Phase : uint8_t { PLAY = 0, OVER = 1 };
    static constexpr uint32_t PLAY_MOVE = tl::PLAY;

    static bool is_single(int card) { return card < 9; }
    static int single_cat(int card) { return card / 3; }
    static int single_val(int card) { return card % 3; }
    static int comp_val(int card, int cat) {  // a Complete's value in a category
        int x = card - 9;
        return cat == 0 ? x / 9 : cat == 1 ? (x / 3) % 3 : x % 3;
    }

    struct Hand {
        uint8_t single[9] = {};
        uint32_t comps = 0;  // bit per Complete (card - 9)
        uint16_t held = 0;  // bit per Single held (single[k] > 0)
        int8_t size = 0;
    };
    // What the trick has shown: the only input of the acceptability rule.
    struct Core {
        uint8_t phase = PLAY;
        int8_t turn = 0, leader = 0, trick_no = 0, trick_len = 0;
        uint8_t shown[3] = {};  // per category, bit per value
        uint8_t closed = 0, single_cats = 0;
        uint32_t comps = 0;  // the Completes in the trick
        int8_t taken[MAX_N] = {};
        int8_t last_taker = -1;
    };
    struct State {
        int n = 4;
        Hand hand[MAX_N];
        Core core;
    };
    struct Undo {
        Core core;
    };

    static State parse(const std::vector<int64_t>& v) {
        Reader r(v, NAME);
        State st;
        st.n = int(r.next(3, 7, "the number of players"));
        int n = st.n;
        Core& c = st.core;
        c.phase = uint8_t(r.next(0, 1, "the phase"));
        c.turn = int8_t(r.next(0, n - 1, "the turn"));
        c.leader = int8_t(r.next(0, n - 1, "the leader"));
        c.trick_no = int8_t(r.next(0, 63, "the tricks taken"));
        for (int s = 0; s < n; ++s) c.taken[s] = int8_t(r.next(0, 63, "tricks taken"));
        for (int s = 0; s < n; ++s) {
            Hand& h = st.hand[s];
            int size = 0;
            for (int k = 0; k < 9; ++k) {
                h.single[k] = uint8_t(r.next(0, 4, "a hand's Singles"));
                size += h.single[k];
                if (h.single[k]) h.held |= uint16_t(1u << k);
            }
            h.comps = uint32_t(r.next(0, (1 << 27) - 1, "a hand's Completes"));
            h.size = int8_t(size + popcount(h.comps));
        }
        c.trick_len = int8_t(r.next(0, 63, "the trick's length"));
        for (int k = 0; k < 3; ++k) c.shown[k] = uint8_t(r.next(0, 7, "the values shown"));
        c.closed = uint8_t(r.next(0, 7, "the closed categories"));
        c.single_cats = uint8_t(r.next(0, 7, "the categories of Singles played"));
        c.comps = uint32_t(r.next(0, (1 << 27) - 1, "the trick's Completes"));
        r.done();
        return st;
    }

    static std::vector<int64_t> numbers(const State& st) {
        const Core& c = st.core;
        std::vector<int64_t> v{st.n, c.phase, c.turn, c.leader, c.trick_no};
        for (int s = 0; s < st.n; ++s) v.push_back(c.taken[s]);
        for (int s = 0; s < st.n; ++s) {
            for (int k = 0; k < 9; ++k) v.push_back(st.hand[s].single[k]);
            v.push_back(st.hand[s].comps);
        }
        v.push_back(c.trick_len);
        for (int k = 0; k < 3; ++k) v.push_back(c.shown[k]);
        v.push_back(c.closed);
        v.push_back(c.single_cats);
        v.push_back(c.comps);
        return v;
    }

    static Status status(const State& st) { return st.core.phase == OVER ? tl::OVER : DECIDE; }
    static int mover(const State& st) { return st.core.phase == PLAY ? st.core.turn : -1; }

    // under_the_radar.why_unacceptable(card, trick) is None
    static bool acceptable(const Core& c, int card) {
        if (is_single(card)) {
            int cat = single_cat(card), val = single_val(card);
            if (c.closed >> cat & 1) return false;
            return (c.shown[cat] & ~(1u << val)) == 0;
        }
        if (c.comps == 0) {
            for (int i = 0; i < 3; ++i)
                if (c.shown[i] & ~(1u << comp_val(card, i))) return false;
            return true;
        }
        for (uint32_t m = c.comps; m; m &= m - 1) {
            int other = 9 + lowest_bit(m);
            int differing = -1, count = 0;
            for (int i = 0; i < 3; ++i)
                if (comp_val(card, i) != comp_val(other, i)) {
                    differing = i;
                    ++count;
                }
            if (count != 1) return false;
            if (c.single_cats >> differing & 1) return false;
        }
        return true;
    }

    // Completes as bit sets (bit card - 9): those showing value v in category i, and those
    // that differ from Complete y in category d only.
    struct Tables {
        uint32_t with[3][3] = {};
        uint32_t neighbour[27][3] = {};
        Tables() {
            for (int x = 0; x < 27; ++x) {
                for (int i = 0; i < 3; ++i) with[i][comp_val(9 + x, i)] |= 1u << x;
                for (int y = 0; y < 27; ++y) {
                    int differing = -1, count = 0;
                    for (int i = 0; i < 3; ++i)
                        if (comp_val(9 + x, i) != comp_val(9 + y, i)) {
                            differing = i;
                            ++count;
                        }
                    if (count == 1) neighbour[x][differing] |= 1u << y;
                }
            }
        }
    };
    static const Tables& tables() {
        static const Tables t;
        return t;
    }

    // The acceptable cards as bit sets (Singles: bit per Single; Completes: bit card - 9):
    // `acceptable` for every card at once.
    static void acceptable_sets(const Core& c, uint32_t& singles, uint32_t& comps) {
        const Tables& t = tables();
        singles = 0;
        for (int cat = 0; cat < 3; ++cat) {
            if (c.closed >> cat & 1) continue;
            uint32_t shown = c.shown[cat];
            uint32_t values = shown == 0 ? 7u : (shown & (shown - 1)) ? 0u : shown;
            singles |= values << (3 * cat);
        }
        if (c.comps == 0) {
            comps = (1u << 27) - 1;
            for (int i = 0; i < 3; ++i) {
                uint32_t shown = c.shown[i];
                if (!shown) continue;
                comps &= (shown & (shown - 1)) ? 0u : t.with[i][lowest_bit(shown)];
            }
            return;
        }
        comps = (1u << 27) - 1;
        for (uint32_t m = c.comps; m; m &= m - 1) {
            int y = lowest_bit(m);
            uint32_t ok = 0;
            for (int d = 0; d < 3; ++d)
                if (!(c.single_cats >> d & 1)) ok |= t.neighbour[y][d];
            comps &= ok;
        }
    }

    static void choices(const State& st, MoveList& out) {
        out.clear();
        const Core& c = st.core;
        if (c.phase != PLAY) return;
        int s = c.turn;
        const Hand& h = st.hand[s];
        uint32_t held = h.held;
        uint32_t singles = held, comps = h.comps;
        if (c.trick_len > 0) {
            uint32_t ok_singles, ok_comps;
            acceptable_sets(c, ok_singles, ok_comps);
            if ((held & ok_singles) | (h.comps & ok_comps)) {  // none acceptable: any card
                singles &= ok_singles;
                comps &= ok_comps;
            }
        }
        uint32_t base = make_move(PLAY_MOVE, s, 0);
        for (uint32_t m = singles; m; m &= m - 1) out.add(base + uint32_t(lowest_bit(m)));
        for (uint32_t m = comps; m; m &= m - 1) out.add(base + uint32_t(9 + lowest_bit(m)));
    }
    static void legal(const State& st, MoveList& out) { choices(st, out); }

    static void add_to_trick(Core& c, int card) {
        if (is_single(card)) {
            c.shown[single_cat(card)] |= uint8_t(1 << single_val(card));
            c.single_cats |= uint8_t(1 << single_cat(card));
            return;
        }
        for (uint32_t m = c.comps; m; m &= m - 1) {
            int other = 9 + lowest_bit(m);
            for (int i = 0; i < 3; ++i)
                if (comp_val(card, i) != comp_val(other, i)) c.closed |= uint8_t(1 << i);
        }
        for (int i = 0; i < 3; ++i) c.shown[i] |= uint8_t(1 << comp_val(card, i));
        c.comps |= 1u << (card - 9);
    }

    static void clear_trick(Core& c) {
        c.trick_len = 0;
        c.shown[0] = c.shown[1] = c.shown[2] = 0;
        c.closed = c.single_cats = 0;
        c.comps = 0;
    }

    static void make(State& st, Move m, Undo& u) {
        if (move_type(m) != PLAY_MOVE) throw std::invalid_argument("under_the_radar: not a play");
        u.core = st.core;
        Core& c = st.core;
        int s = move_seat(m), card = int(move_payload(m));
        bool takes = c.trick_len > 0 && !acceptable(c, card);
        Hand& h = st.hand[s];
        if (is_single(card)) {
            if (--h.single[card] == 0) h.held &= uint16_t(~(1u << card));
        } else {
            h.comps &= ~(1u << (card - 9));
        }
        --h.size;
        if (takes) {
            ++c.taken[s];
            ++c.trick_no;
            c.last_taker = int8_t(s);
            clear_trick(c);
            if (h.size == 0) c.phase = OVER;  // taken with the last card: the round ends
            else c.leader = c.turn = int8_t(s);
            return;
        }
        add_to_trick(c, card);
        ++c.trick_len;
        for (int k = 1; k <= st.n; ++k) {
            int t = (s + k) % st.n;
            if (st.hand[t].size) {
                c.turn = int8_t(t);
                return;
            }
        }
        c.last_taker = -1;  // nobody has cards left: the trick is discarded
        clear_trick(c);
        c.phase = OVER;
    }

    static void unmake(State& st, Move m, const Undo& u) {
        int card = int(move_payload(m));
        Hand& h = st.hand[move_seat(m)];
        if (is_single(card)) {
            ++h.single[card];
            h.held |= uint16_t(1u << card);
        } else {
            h.comps |= 1u << (card - 9);
        }
        ++h.size;
        st.core = u.core;
    }

    static void chance_outcomes(const State&, ChanceList& out) { out.clear(); }
    static Move chance_draw(const State&, Rng&) {
        throw std::logic_error("under_the_radar has no chance event in a round");
    }

    static void scores(const State& st, Scores& out) {
        out.fill(0.0);
        for (int s = 0; s < st.n; ++s) out[s] = st.core.taken[s];
    }

    static void scores_of(const State& st, const MoveList& moves, double* out) {
        for (int i = 0; i < moves.size; ++i) out[i] = heuristic(st, moves.moves[i]);
    }
    static double heuristic(const State& st, Move m) {
        int s = move_seat(m), card = int(move_payload(m));
        return is_single(card) ? double(st.hand[s].single[card]) : 10.0;
    }

    static void merge(const State&, const MoveList& in, MoveList& out) {
        out.clear();
        for (int i = 0; i < in.size; ++i) out.add(in.moves[i], in.weight[i]);
    }

    static int cards_left(const State& st) {
        int k = 0;
        for (int s = 0; s < st.n; ++s) k += st.hand[s].size;
        return k;
    }

    static bool table_point(const State& st) { return st.core.phase == PLAY && st.core.trick_len == 0; }

    static uint64_t key(const State& st) {
        Hasher h;
        h.add(uint64_t(st.core.turn) | uint64_t(st.n) << 8);
        for (int s = 0; s < st.n; ++s) {
            const Hand& hd = st.hand[s];
            uint64_t singles = 0;
            for (int k = 0; k < 9; ++k) singles |= uint64_t(hd.single[k]) << (3 * k);
            h.add(singles | uint64_t(st.core.taken[s]) << 32);
            h.add(hd.comps);
        }
        return h.value();
    }

    // The fewest tricks `seat` can end with is those taken already (as a score where higher
    // is better for the solver: its negative).
    static double bound(const State& st, int seat) { return -double(st.core.taken[seat]); }

    static std::vector<int> winners(const State& st) { return {st.core.last_taker}; }
};

}  // namespace tl
