// color_stacks (RULES.md section 3, replay/games/color_stacks.py): the rest of one round.
// The shape of a game is described in plotters.hpp.
//
// A card is numbered as the game numbers it (suit letter's place in ROYGBPKW x 9 + number - 1);
// inside, the suits in use are slots 0..4 in that same letter order, so that a hand is a
// 45-bit set whose bit order is the deck order.
#pragma once

#include "common.hpp"

namespace tl {

struct ColorStacks {
    static constexpr const char* NAME = "color_stacks";
    static constexpr int SIGN = 1;
    static constexpr int MAX_N = 4;
    static constexpr int MAX_SUITS = 5;
    static constexpr int END_AT = 6;
    static constexpr int ENDER_BONUS = 2;
    enum Phase : uint8_t { PLACE = 0, DRAW = 1, OVER = 2 };
    static constexpr uint32_t PLACE_MOVE = tl::PLACE, DRAW_MOVE = tl::DRAW;

    struct Core {
        uint8_t phase = PLACE;
        int8_t turn = 0, ender = -1;
        uint8_t turns = 0, pile_pos = 0;
        uint8_t stacks[MAX_SUITS] = {};
    };
    struct State {
        int n = 3, suits = 4;
        uint8_t letter[MAX_SUITS] = {};  // slot -> the suit letter's place in ROYGBPKW
        int8_t slot_of[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
        uint64_t hand[MAX_N] = {};
        uint8_t pile[12] = {};  // slot bits (slot * 9 + number - 1), top first
        int pile_len = 0;
        Core core;
    };
    struct Undo {
        Core core;
    };

    static int bit_of(const State& st, int card) {  // the game's card number -> a hand bit
        int slot = st.slot_of[card / 9];
        if (slot < 0) throw std::invalid_argument("color_stacks: a card of a suit not in use");
        return slot * 9 + card % 9;
    }
    static int card_of(const State& st, int bit) { return st.letter[bit / 9] * 9 + bit % 9; }

    static State parse(const std::vector<int64_t>& v) {
        Reader r(v, NAME);
        State st;
        st.n = int(r.next(2, 4, "the number of players"));
        int n = st.n;
        Core& c = st.core;
        c.phase = uint8_t(r.next(0, 2, "the phase"));
        c.turn = int8_t(r.next(0, n - 1, "the turn"));
        c.turns = uint8_t(r.next(0, 40, "the turns taken"));
        c.ender = int8_t(r.next(-1, n - 1, "the ender"));
        st.suits = int(r.next(4, 5, "the number of suits"));
        int last = -1;
        for (int i = 0; i < st.suits; ++i) {  // in letter order
            int letter = int(r.next(0, 7, "a suit"));
            if (letter <= last) throw std::invalid_argument("color_stacks position: suits out of order");
            last = letter;
            st.letter[i] = uint8_t(letter);
            st.slot_of[letter] = int8_t(i);
        }
        for (int i = 0; i < st.suits; ++i) c.stacks[i] = uint8_t(r.next(0, 9, "a stack"));
        for (int s = 0; s < n; ++s) {
            int k = int(r.next(0, 12, "a hand's size"));
            for (int i = 0; i < k; ++i) st.hand[s] |= uint64_t(1) << bit_of(st, int(r.next(0, 71, "a card")));
        }
        st.pile_len = int(r.next(0, 12, "the pile's size"));
        for (int i = 0; i < st.pile_len; ++i) st.pile[i] = uint8_t(bit_of(st, int(r.next(0, 71, "a pile card"))));
        c.pile_pos = 0;
        r.done();
        return st;
    }

    static std::vector<int64_t> numbers(const State& st) {
        const Core& c = st.core;
        std::vector<int64_t> v{st.n, c.phase, c.turn, c.turns, c.ender, st.suits};
        for (int i = 0; i < st.suits; ++i) v.push_back(st.letter[i]);
        for (int i = 0; i < st.suits; ++i) v.push_back(c.stacks[i]);
        for (int s = 0; s < st.n; ++s) {
            v.push_back(popcount(st.hand[s]));
            for (uint64_t m = st.hand[s]; m; m &= m - 1) v.push_back(card_of(st, lowest_bit(m)));
        }
        v.push_back(st.pile_len - c.pile_pos);
        for (int i = c.pile_pos; i < st.pile_len; ++i) v.push_back(card_of(st, st.pile[i]));
        return v;
    }

    static Status status(const State& st) { return st.core.phase == OVER ? tl::OVER : DECIDE; }

    static int drawer(const State& st) { return (st.core.turn - 1 + st.n) % st.n; }

    static int mover(const State& st) {
        switch (st.core.phase) {
            case PLACE: return st.core.turn;
            case DRAW: return drawer(st);
            default: return -1;
        }
    }

    static void choices(const State& st, MoveList& out) {
        out.clear();
        const Core& c = st.core;
        if (c.phase == PLACE) {
            int s = c.turn;
            for (uint64_t a = st.hand[s]; a; a &= a - 1) {
                int x = lowest_bit(a);
                for (uint64_t b = a & (a - 1); b; b &= b - 1) {
                    int y = lowest_bit(b);
                    out.add(make_move(PLACE_MOVE, s, uint32_t(card_of(st, x)) | uint32_t(card_of(st, y)) << 8));
                }
            }
        } else if (c.phase == DRAW) {
            out.add(make_move(DRAW_MOVE, drawer(st), 0));
        }
    }

    static void legal(const State& st, MoveList& out) {
        choices(st, out);
        if (st.core.phase == DRAW) out.add(make_move(DRAW_MOVE, 1 - drawer(st), 0));  // either may turn them
    }

    static void make(State& st, Move m, Undo& u) {
        u.core = st.core;
        Core& c = st.core;
        int s = move_seat(m);
        uint32_t p = move_payload(m);
        int a, b;
        if (move_type(m) == PLACE_MOVE) {
            a = bit_of(st, int(p & 0xFF));
            b = bit_of(st, int(p >> 8));
            st.hand[s] &= ~(uint64_t(1) << a | uint64_t(1) << b);
            ++c.turns;
            c.turn = int8_t((s + 1) % st.n);
        } else if (move_type(m) == DRAW_MOVE) {
            a = st.pile[c.pile_pos];
            b = st.pile[c.pile_pos + 1];
            c.pile_pos = uint8_t(c.pile_pos + 2);
        } else {
            throw std::invalid_argument("color_stacks: not a color_stacks move");
        }
        ++c.stacks[a / 9];
        ++c.stacks[b / 9];
        if (c.stacks[a / 9] >= END_AT || c.stacks[b / 9] >= END_AT) {
            c.phase = OVER;
            c.ender = int8_t(s);
        } else if (move_type(m) == PLACE_MOVE) {
            c.phase = (st.n == 2 && c.turns % 2 == 0 && c.pile_pos < st.pile_len) ? DRAW : PLACE;
        } else {
            c.phase = PLACE;
        }
    }

    static void unmake(State& st, Move m, const Undo& u) {
        if (move_type(m) == PLACE_MOVE) {
            uint32_t p = move_payload(m);
            st.hand[move_seat(m)] |= uint64_t(1) << bit_of(st, int(p & 0xFF)) | uint64_t(1) << bit_of(st, int(p >> 8));
        }
        st.core = u.core;
    }

    static void chance_outcomes(const State&, ChanceList& out) { out.clear(); }
    static Move chance_draw(const State&, Rng&) {
        throw std::logic_error("color_stacks has no chance event in a round");
    }

    static uint64_t suit_mask(int slot) { return uint64_t(0x1FF) << (9 * slot); }

    static void scores(const State& st, Scores& out) {
        out.fill(0.0);
        const Core& c = st.core;
        for (int s = 0; s < st.n; ++s) {
            int total = 0;
            for (int k = 0; k < st.suits; ++k) {
                int held = popcount(st.hand[s] & suit_mask(k));
                if (c.stacks[k] < END_AT) total += held * c.stacks[k];
            }
            if (s == c.ender) total += ENDER_BONUS;
            out[s] = total;
        }
    }

    // color_stacks.heuristic: the hand that stays after the turn, each card worth its stack
    // if the stack stays under six (half while it stands at five, unless the turn ends the
    // game), +2 for ending the game. Every card counts a multiple of one half: the sum is
    // exact in any order, so it is taken suit by suit.
    static double score(const State& st, const int* held, Move m) {
        if (move_type(m) == DRAW_MOVE) return 0.0;
        uint32_t p = move_payload(m);
        int a = bit_of(st, int(p & 0xFF)) / 9, b = bit_of(st, int(p >> 8)) / 9;
        int stacks[MAX_SUITS] = {};
        int left[MAX_SUITS] = {};
        bool ends = false;
        for (int k = 0; k < st.suits; ++k) {
            stacks[k] = st.core.stacks[k] + (k == a) + (k == b);
            left[k] = held[k] - (k == a) - (k == b);
            if (stacks[k] >= END_AT) ends = true;
        }
        double value = 0.0;
        for (int k = 0; k < st.suits; ++k) {
            int size = stacks[k];
            if (size < END_AT && left[k]) value += left[k] * ((ends || size < END_AT - 1) ? double(size) : size / 2.0);
        }
        return value + (ends ? ENDER_BONUS : 0);
    }
    static void scores_of(const State& st, const MoveList& moves, double* out) {
        if (moves.size == 0) return;
        int held[MAX_SUITS] = {};
        uint64_t hand = st.hand[move_seat(moves.moves[0])];
        for (int k = 0; k < st.suits; ++k) held[k] = popcount(hand & suit_mask(k));
        for (int i = 0; i < moves.size; ++i) out[i] = score(st, held, moves.moves[i]);
    }
    static double heuristic(const State& st, Move m) {
        MoveList one;
        one.add(m);
        double out;
        scores_of(st, one, &out);
        return out;
    }

    // A card's number only tells it apart: two placements of the same two suits are the same
    // move, and a hand is its count of cards per suit.
    static void merge(const State& st, const MoveList& in, MoveList& out) {
        out.clear();
        int at[MAX_SUITS][MAX_SUITS];
        for (auto& row : at)
            for (int& x : row) x = -1;
        for (int i = 0; i < in.size; ++i) {
            Move m = in.moves[i];
            if (move_type(m) != PLACE_MOVE) {
                out.add(m, in.weight[i]);
                continue;
            }
            uint32_t p = move_payload(m);
            int a = bit_of(st, int(p & 0xFF)) / 9, b = bit_of(st, int(p >> 8)) / 9;
            if (a > b) std::swap(a, b);
            if (at[a][b] < 0) {
                at[a][b] = out.size;
                out.add(m, in.weight[i]);
            } else {
                out.weight[at[a][b]] += in.weight[i];
            }
        }
    }

    static int cards_left(const State& st) {
        int k = 0;
        for (int s = 0; s < st.n; ++s) k += popcount(st.hand[s]);
        return k;
    }

    static bool table_point(const State& st) { return st.core.phase == PLACE; }

    static uint64_t key(const State& st) {
        Hasher h;
        const Core& c = st.core;
        uint64_t stacks = 0;
        for (int k = 0; k < st.suits; ++k) stacks |= uint64_t(c.stacks[k]) << (4 * k);
        h.add(stacks | uint64_t(c.turn) << 32 | uint64_t(c.turns & 1) << 40 | uint64_t(st.n) << 56);
        uint64_t pile = uint64_t(st.pile_len - c.pile_pos);  // what is left of it, suit by suit
        for (int i = c.pile_pos; i < st.pile_len; ++i) pile = pile << 3 | uint64_t(st.pile[i] / 9);
        h.add(pile);
        for (int s = 0; s < st.n; ++s) {
            uint64_t counts = 0;
            for (int k = 0; k < st.suits; ++k) counts |= uint64_t(popcount(st.hand[s] & suit_mask(k))) << (4 * k);
            h.add(counts);
        }
        return h.value();
    }

    static double bound(const State&, int) { return 1e300; }

    static std::vector<int> winners(const State&) { return {}; }
};

}  // namespace tl
