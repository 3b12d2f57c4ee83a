// rage (RULES.md section 2, replay/games/rage.py): the rest of one round, its bids, its tricks
// and the trumps turned inside it (the chance events).
// The shape of a game is described in plotters.hpp.
#pragma once

#include <cmath>

#include "common.hpp"

namespace tl {

struct Rage {
    static constexpr const char* NAME = "rage";
    static constexpr int SIGN = 1;
    static constexpr int MAX_N = 8;
    static constexpr int COLOURS = 6;
    // action cards, numbered after the 96 colour cards in the game's deck order
    enum Action : int { JOKER = 0, NOTRUMP = 1, CHANGE = 2, PLUS5 = 3, MINUS5 = 4, ACTIONS = 5 };
    static constexpr int ACTION_COPIES[ACTIONS] = {2, 4, 4, 3, 3};
    enum Phase : uint8_t { TRUMP = 0, BID = 1, PLAY = 2, AFTER_TRICKS = 3, OVER = 4 };
    enum Reason : uint8_t { BY_DEAL = 0, BY_CHANGE = 1, BY_NOTRUMP = 2 };
    static constexpr uint32_t PLAY_MOVE = tl::PLAY, BID_MOVE = tl::BID, TURN_MOVE = tl::TURN;

    static bool is_colour(int card) { return card < 96; }
    static int colour(int card) { return card < 96 ? card / 16 : -1; }
    static int value(int card) { return card < 96 ? card % 16 : 0; }
    static int action(int card) { return card - 96; }

    struct Hand {
        uint16_t col[COLOURS] = {};  // bit per value 0-15
        uint8_t act[ACTIONS] = {};
    };
    struct Core {
        uint8_t phase = PLAY, reason = BY_DEAL;
        int8_t trump = -1, led = -1;
        bool notrump = false, change = false, trick_full = false, played_any = false;
        int8_t bid_count = 0, next_bidder = 0, trick_no = 0, leader = 0, turn = 0, trick_len = 0;
        int8_t bids[MAX_N] = {};
        int8_t won[MAX_N] = {}, plus5[MAX_N] = {}, minus5[MAX_N] = {};
        int8_t trick_seat[MAX_N] = {};
        uint8_t trick_card[MAX_N] = {};
        int8_t trick_as[MAX_N] = {};  // a Joker's colour, -1 for any other card
        int8_t last_winner = -1;
        uint8_t pile_col[COLOURS] = {};  // the cards neither dealt nor turned, per colour
        uint8_t pile_act[ACTIONS] = {};
    };
    struct State {
        int n = 4, hs = 10, dealer = 0;
        bool plus_minus_one = false, secret = false, any_order = false, marching = false;
        Hand hand[MAX_N];
        Core core;
    };
    struct Undo {
        Core core;
    };

    static State parse(const std::vector<int64_t>& v) {
        Reader r(v, NAME);
        State st;
        st.n = int(r.next(3, 8, "the number of players"));
        int n = st.n;
        st.hs = int(r.next(1, 10, "the hand size"));
        int flags = int(r.next(0, 15, "the variants"));
        st.plus_minus_one = flags & 1;
        st.secret = flags & 2;
        st.any_order = flags & 4;
        st.marching = flags & 8;
        st.dealer = int(r.next(0, n - 1, "the dealer"));
        Core& c = st.core;
        c.phase = uint8_t(r.next(0, 4, "the phase"));
        c.reason = uint8_t(r.next(0, 2, "why a trump is due"));
        c.trump = int8_t(r.next(-1, 5, "the trump"));
        c.bid_count = int8_t(r.next(0, n, "the bids made"));
        c.next_bidder = int8_t(r.next(0, n - 1, "the next bidder"));
        c.trick_no = int8_t(r.next(0, st.hs, "the tricks played"));
        c.leader = int8_t(r.next(0, n - 1, "the leader"));
        c.turn = int8_t(r.next(0, n - 1, "the turn"));
        c.led = int8_t(r.next(-1, 5, "the led colour"));
        c.notrump = r.next(0, 1, "NOTRUMP played");
        c.change = r.next(0, 1, "CHANGE played");
        c.trick_full = r.next(0, 1, "the trick is full");
        c.played_any = r.next(0, 1, "a card played");
        for (int s = 0; s < n; ++s) {
            for (int k = 0; k < COLOURS; ++k) st.hand[s].col[k] = uint16_t(r.next(0, 0xFFFF, "a hand"));
            for (int k = 0; k < ACTIONS; ++k)
                st.hand[s].act[k] = uint8_t(r.next(0, ACTION_COPIES[k], "a hand's action cards"));
        }
        for (int k = 0; k < COLOURS; ++k) c.pile_col[k] = uint8_t(r.next(0, 16, "the pile"));
        for (int k = 0; k < ACTIONS; ++k) c.pile_act[k] = uint8_t(r.next(0, ACTION_COPIES[k], "the pile"));
        for (int s = 0; s < n; ++s) c.bids[s] = int8_t(r.next(-1, st.hs, "a bid"));
        for (int s = 0; s < n; ++s) c.won[s] = int8_t(r.next(0, st.hs, "tricks won"));
        for (int s = 0; s < n; ++s) c.plus5[s] = int8_t(r.next(0, 3, "+5 cards won"));
        for (int s = 0; s < n; ++s) c.minus5[s] = int8_t(r.next(0, 3, "-5 cards won"));
        c.trick_len = int8_t(r.next(0, n, "the trick's length"));
        for (int i = 0; i < c.trick_len; ++i) {
            c.trick_seat[i] = int8_t(r.next(0, n - 1, "a trick's seat"));
            c.trick_card[i] = uint8_t(r.next(0, 100, "a trick's card"));
            c.trick_as[i] = int8_t(r.next(-1, 5, "a Joker's colour"));
        }
        r.done();
        return st;
    }

    static std::vector<int64_t> numbers(const State& st) {
        const Core& c = st.core;
        int n = st.n;
        int flags = st.plus_minus_one | st.secret << 1 | st.any_order << 2 | st.marching << 3;
        std::vector<int64_t> v{n, st.hs, flags, st.dealer, c.phase, c.reason, c.trump, c.bid_count,
                               c.next_bidder, c.trick_no, c.leader, c.turn, c.led, c.notrump, c.change,
                               c.trick_full, c.played_any};
        for (int s = 0; s < n; ++s) {
            for (int k = 0; k < COLOURS; ++k) v.push_back(st.hand[s].col[k]);
            for (int k = 0; k < ACTIONS; ++k) v.push_back(st.hand[s].act[k]);
        }
        for (int k = 0; k < COLOURS; ++k) v.push_back(c.pile_col[k]);
        for (int k = 0; k < ACTIONS; ++k) v.push_back(c.pile_act[k]);
        for (int s = 0; s < n; ++s) v.push_back(c.bids[s]);
        for (int s = 0; s < n; ++s) v.push_back(c.won[s]);
        for (int s = 0; s < n; ++s) v.push_back(c.plus5[s]);
        for (int s = 0; s < n; ++s) v.push_back(c.minus5[s]);
        v.push_back(c.trick_len);
        for (int i = 0; i < c.trick_len; ++i) {
            v.push_back(c.trick_seat[i]);
            v.push_back(c.trick_card[i]);
            v.push_back(c.trick_as[i]);
        }
        return v;
    }

    static Status status(const State& st) {
        if (st.core.phase == OVER) return tl::OVER;
        if (st.core.phase == TRUMP) return CHANCE;
        return DECIDE;
    }

    // ------------------------------------------------------------ bids
    static bool may_bid(const State& st, int s) {  // why_no_bid(s) is None
        const Core& c = st.core;
        if (c.phase == TRUMP || c.phase == OVER || c.bids[s] >= 0) return false;
        bool window = !c.played_any || (st.secret && c.phase == AFTER_TRICKS);
        if (!window) return false;
        return st.any_order || s == c.next_bidder;
    }
    static int bidder(const State& st) {  // RageState._bidder
        const Core& c = st.core;
        if (c.bid_count == st.n || c.phase == TRUMP || c.phase == OVER) return -1;
        int s = (st.dealer + 1) % st.n;
        for (int i = 0; i < st.n; ++i) {
            if (may_bid(st, s)) return s;
            s = (s + 1) % st.n;
        }
        return -1;
    }
    static void bids_of(const State& st, int s, MoveList& out) {
        const Core& c = st.core;
        int others = 0;
        for (int x = 0; x < st.n; ++x)
            if (c.bids[x] >= 0) others += c.bids[x];
        bool last = c.bid_count == st.n - 1;
        for (int b = 0; b <= st.hs; ++b)
            if (!(st.plus_minus_one && last && others + b == st.hs)) out.add(make_move(BID_MOVE, s, uint32_t(b)));
    }

    static int mover(const State& st) {
        int b = bidder(st);
        if (b >= 0) return b;
        return st.core.phase == PLAY ? st.core.turn : -1;
    }

    static bool may_play(const State& st, int s, int card) {
        int led = st.core.led;
        if (led < 0 || colour(card) == led) return true;
        return st.hand[s].col[led] == 0;
    }

    static void plays_of(const State& st, MoveList& out) {
        int s = st.core.turn;
        const Hand& h = st.hand[s];
        int led = st.core.led;
        bool follow = led >= 0 && h.col[led];  // must follow: only the led colour, no action card
        for (int k = 0; k < COLOURS; ++k) {
            if (follow && k != led) continue;
            uint32_t base = make_move(PLAY_MOVE, s, uint32_t(k * 16));
            for (uint32_t m = h.col[k]; m; m &= m - 1) out.add(base + uint32_t(lowest_bit(m)));
        }
        if (follow) return;
        for (int a = 0; a < ACTIONS; ++a) {
            if (!h.act[a]) continue;
            if (a == JOKER) {
                for (int as = 0; as < COLOURS; ++as)
                    out.add(make_move(PLAY_MOVE, s, uint32_t(96 + a) | uint32_t(as + 1) << 8));
            } else {
                out.add(make_move(PLAY_MOVE, s, uint32_t(96 + a)));
            }
        }
    }

    static void choices(const State& st, MoveList& out) {
        out.clear();
        int b = bidder(st);
        if (b >= 0) {
            bids_of(st, b, out);
            return;
        }
        if (st.core.phase == PLAY) plays_of(st, out);
    }

    static void legal(const State& st, MoveList& out) {
        out.clear();
        const Core& c = st.core;
        if (c.phase == TRUMP || c.phase == OVER) return;
        if (c.bid_count < st.n)
            for (int s = 0; s < st.n; ++s)
                if (may_bid(st, s)) bids_of(st, s, out);
        if (c.phase == PLAY) plays_of(st, out);
    }

    // ------------------------------------------------------------ tricks
    // rage.winning_index: the highest trump (a Joker named as it above all, the later Joker
    // higher), else the highest of the led colour; with neither, the first card played.
    static int winning_index(const int8_t* seat, const uint8_t* card, const int8_t* as, int len, int trump,
                             int led) {
        (void)seat;
        for (int target : {trump, led}) {
            if (target < 0) continue;
            int best_rank = -1, best_i = -1;
            for (int i = 0; i < len; ++i) {
                int rank;
                if (colour(card[i]) == target) rank = value(card[i]);
                else if (as[i] == target) rank = 16 + i;
                else continue;
                if (rank > best_rank) {
                    best_rank = rank;
                    best_i = i;
                }
            }
            if (best_i >= 0) return best_i;
        }
        return 0;
    }

    static void decide_trick(State& st) {
        Core& c = st.core;
        int trump = c.notrump ? -1 : c.trump;
        int wi = winning_index(c.trick_seat, c.trick_card, c.trick_as, c.trick_len, trump, c.led);
        int w = c.trick_seat[wi];
        for (int i = 0; i < c.trick_len; ++i) {
            if (c.trick_card[i] == 96 + PLUS5) ++c.plus5[w];
            if (c.trick_card[i] == 96 + MINUS5) ++c.minus5[w];
        }
        ++c.won[w];
        ++c.trick_no;
        c.last_winner = int8_t(w);
        bool last = c.trick_no == st.hs;
        bool turn_after = c.notrump && !c.change && !last;
        c.trick_len = 0;
        c.led = -1;
        c.notrump = c.change = c.trick_full = false;
        c.leader = c.turn = int8_t(w);
        if (last) {
            c.phase = c.bid_count == st.n ? OVER : AFTER_TRICKS;
        } else if (turn_after) {
            c.phase = TRUMP;
            c.reason = BY_NOTRUMP;
        } else {
            c.phase = PLAY;
        }
    }

    static void make(State& st, Move m, Undo& u) {
        u.core = st.core;
        Core& c = st.core;
        int s = move_seat(m);
        uint32_t p = move_payload(m);
        switch (move_type(m)) {
            case BID_MOVE: {
                c.bids[s] = int8_t(p);
                ++c.bid_count;
                c.next_bidder = int8_t((s + 1) % st.n);
                if (c.bid_count == st.n) {
                    if (c.phase == AFTER_TRICKS) c.phase = OVER;
                    else if (c.phase == BID) c.phase = PLAY;
                }
                return;
            }
            case PLAY_MOVE: {
                int card = int(p & 0xFF), as = int(p >> 8) - 1;
                Hand& h = st.hand[s];
                if (is_colour(card)) h.col[colour(card)] &= uint16_t(~(1u << value(card)));
                else --h.act[action(card)];
                c.played_any = true;
                c.trick_seat[c.trick_len] = int8_t(s);
                c.trick_card[c.trick_len] = uint8_t(card);
                c.trick_as[c.trick_len] = int8_t(as);
                ++c.trick_len;
                if (c.led < 0) {
                    if (is_colour(card)) c.led = int8_t(colour(card));
                    else if (as >= 0) c.led = int8_t(as);
                }
                bool full = c.trick_len == st.n;
                c.trick_full = full;
                c.turn = int8_t((s + 1) % st.n);
                if (card == 96 + NOTRUMP) {
                    c.notrump = true;
                } else if (card == 96 + CHANGE) {
                    c.change = true;
                    c.phase = TRUMP;
                    c.reason = BY_CHANGE;
                    return;
                }
                if (full) decide_trick(st);
                return;
            }
            case TURN_MOVE: {  // payload: the colour turned (0-5) or 6 + the action card
                int kind = int(p);
                if (kind >= COLOURS) {  // an action card turned up is set aside
                    --c.pile_act[kind - COLOURS];
                    return;
                }
                --c.pile_col[kind];
                c.trump = int8_t(kind);
                if (c.reason == BY_DEAL) {
                    c.phase = (c.bid_count < st.n && !st.secret) ? BID : PLAY;
                } else if (c.reason == BY_CHANGE) {
                    c.phase = PLAY;
                    if (c.trick_full) decide_trick(st);
                } else {
                    c.phase = PLAY;
                }
                return;
            }
            default:
                throw std::invalid_argument("rage: not a rage move");
        }
    }

    static void unmake(State& st, Move m, const Undo& u) {
        if (move_type(m) == PLAY_MOVE) {
            int card = int(move_payload(m) & 0xFF);
            Hand& h = st.hand[move_seat(m)];
            if (is_colour(card)) h.col[colour(card)] |= uint16_t(1u << value(card));
            else ++h.act[action(card)];
        }
        st.core = u.core;
    }

    // A turned trump: only its colour matters (action cards turned up are set aside, and the
    // next card is turned), so the outcomes are the colours, each as likely as its share of
    // the colour cards left in the pile.
    static void chance_outcomes(const State& st, ChanceList& out) {
        out.clear();
        int total = 0;
        for (int k = 0; k < COLOURS; ++k) total += st.core.pile_col[k];
        if (total == 0) throw std::logic_error("rage: a trump is due but the pile holds no colour card");
        for (int k = 0; k < COLOURS; ++k)
            if (st.core.pile_col[k]) out.add(make_move(TURN_MOVE, 0, uint32_t(k)), double(st.core.pile_col[k]) / total);
    }
    static Move chance_draw(const State& st, Rng& rng) {  // one card of the pile, any kind
        int total = 0;
        for (int k = 0; k < COLOURS; ++k) total += st.core.pile_col[k];
        for (int k = 0; k < ACTIONS; ++k) total += st.core.pile_act[k];
        if (total == 0) throw std::logic_error("rage: a trump is due but the pile is empty");
        int r = int(rng.below(uint32_t(total)));
        for (int k = 0; k < COLOURS; ++k) {
            r -= st.core.pile_col[k];
            if (r < 0) return make_move(TURN_MOVE, 0, uint32_t(k));
        }
        for (int k = 0; k < ACTIONS; ++k) {
            r -= st.core.pile_act[k];
            if (r < 0) return make_move(TURN_MOVE, 0, uint32_t(COLOURS + k));
        }
        throw std::logic_error("rage: the pile is smaller than it counts");
    }

    static int score_of(const State& st, int s) {
        const Core& c = st.core;
        int won = c.won[s];
        bool marching = st.marching && st.hs > 1 && won == st.hs;
        int base = won * (marching ? 2 : 1);
        int total = won == c.bids[s] ? base + 10 : base - 5;
        return total + 5 * c.plus5[s] - 5 * c.minus5[s];
    }
    static void scores(const State& st, Scores& out) {
        out.fill(0.0);
        for (int s = 0; s < st.n; ++s) out[s] = score_of(st, s);
    }

    // ------------------------------------------------------------ the greedy bot
    static double bid_estimate(const State& st, int s) {
        const Hand& h = st.hand[s];
        int trump = st.core.trump;
        double est = 0.0;
        for (int k = 0; k < COLOURS; ++k)
            for (uint32_t m = h.col[k]; m; m &= m - 1) {
                int v = lowest_bit(m);
                double x;
                if (k == trump) x = v >= 11 ? 0.9 : v >= 6 ? 0.5 : 0.25;
                else x = v >= 14 ? 0.6 : v >= 12 ? 0.25 : 0.0;
                est += x;
            }
        est += 1.0 * h.act[JOKER];
        return est * std::min(1.0, 4.5 / st.n);
    }

    // What the greedy bot's scores of one decision share: the trick's best rank in each
    // colour (a card of the colour: its value; a Joker named as it: 16 + its place), and the
    // mover's bid (their estimate, rounded half to even, while they have not bid).
    struct Context {
        int best[COLOURS];
        int bid;
        double estimate;
    };
    static Context context(const State& st, int s) {
        const Core& c = st.core;
        Context x;
        for (int& b : x.best) b = -1;
        for (int i = 0; i < c.trick_len; ++i) {
            int card = c.trick_card[i];
            if (is_colour(card)) x.best[colour(card)] = std::max(x.best[colour(card)], value(card));
            else if (c.trick_as[i] >= 0) x.best[c.trick_as[i]] = std::max(x.best[c.trick_as[i]], 16 + i);
        }
        x.estimate = c.bids[s] < 0 ? bid_estimate(st, s) : 0.0;
        x.bid = c.bids[s] >= 0 ? c.bids[s] : int(std::nearbyint(x.estimate));  // round(): half to even
        return x;
    }
    // rage.heuristic: bid the estimate; play to make the bid (the cheapest winning card while
    // short of it, the highest losing card once there), a -5 won costing 5 more.
    static double score(const State& st, const Context& x, Move m) {
        const Core& c = st.core;
        int s = move_seat(m);
        uint32_t p = move_payload(m);
        if (move_type(m) == BID_MOVE) return -std::fabs(double(int(p)) - x.estimate);
        int card = int(p & 0xFF), as = int(p >> 8) - 1;
        int len = c.trick_len;
        int led = c.led;
        if (led < 0) led = is_colour(card) ? colour(card) : as;
        int trump = (c.notrump || card == 96 + NOTRUMP) ? -1 : c.trump;
        // winning_index over the trick with this card last: the first target with a card in
        // it decides, and this card wins there if its rank tops the trick's
        bool wins = len == 0;
        for (int target : {trump, led}) {
            if (target < 0) continue;
            int mine = is_colour(card) ? (colour(card) == target ? value(card) : -1) : (as == target ? 16 + len : -1);
            if (mine < 0 && x.best[target] < 0) continue;
            wins = mine > x.best[target];
            break;
        }
        bool need = c.won[s] < x.bid;
        int strength = is_colour(card) ? value(card) : (card == 96 + JOKER ? 16 : 8);
        int penalty = (card == 96 + MINUS5 && wins) ? 5 : 0;
        if (need) return double((wins ? 100 - strength : -strength) - penalty);
        return double((wins ? -100 : strength) - penalty);
    }
    static void scores_of(const State& st, const MoveList& moves, double* out) {
        if (moves.size == 0) return;
        Context x = context(st, move_seat(moves.moves[0]));
        for (int i = 0; i < moves.size; ++i) out[i] = score(st, x, moves.moves[i]);
    }
    static double heuristic(const State& st, Move m) { return score(st, context(st, move_seat(m)), m); }

    // ------------------------------------------------------------ the solver's parts
    // Two cards of one colour in the mover's hand are equivalent when no other card of that
    // colour still in play (any hand, the trick) lies between them: a card is compared only
    // with cards of its own colour. A Joker that follows is named for the led colour, the
    // trump, or any other colour, and every other colour does the same (unless a CHANGE is
    // still in a hand: the trump may yet become that colour).
    static void merge(const State& st, const MoveList& in, MoveList& out) {
        out.clear();
        const Core& c = st.core;
        if (in.size == 0 || move_type(in.moves[0]) != PLAY_MOVE) {
            for (int i = 0; i < in.size; ++i) out.add(in.moves[i], in.weight[i]);
            return;
        }
        uint32_t live[COLOURS] = {};
        bool change_left = false;
        for (int s = 0; s < st.n; ++s) {
            for (int k = 0; k < COLOURS; ++k) live[k] |= st.hand[s].col[k];
            if (st.hand[s].act[CHANGE]) change_left = true;
        }
        for (int i = 0; i < c.trick_len; ++i)
            if (is_colour(c.trick_card[i])) live[colour(c.trick_card[i])] |= 1u << value(c.trick_card[i]);
        int other_joker = -1;  // where the merged "any other colour" Joker went
        int i = 0;
        while (i < in.size) {
            uint32_t p = move_payload(in.moves[i]);
            int card = int(p & 0xFF);
            if (is_colour(card)) {
                int col = colour(card), hi = value(card);
                int j = i + 1;
                while (j < in.size) {
                    int nxt = int(move_payload(in.moves[j]) & 0xFF);
                    if (!is_colour(nxt) || colour(nxt) != col) break;
                    int w = value(nxt);
                    uint32_t between = live[col] & ((1u << w) - 1) & ~((2u << hi) - 1);
                    if (between) break;
                    hi = w;
                    ++j;
                }
                out.add(in.moves[i], j - i);
                i = j;
                continue;
            }
            int as = int(p >> 8) - 1;
            if (as >= 0 && c.led >= 0 && !change_left && as != c.led && as != c.trump) {
                if (other_joker < 0) {
                    other_joker = out.size;
                    out.add(in.moves[i], 1);
                } else {
                    ++out.weight[other_joker];
                }
            } else {
                out.add(in.moves[i], in.weight[i]);
            }
            ++i;
        }
    }

    static int cards_left(const State& st) {
        int k = 0;
        for (int s = 0; s < st.n; ++s) {
            for (int c = 0; c < COLOURS; ++c) k += popcount(st.hand[s].col[c]);
            for (int a = 0; a < ACTIONS; ++a) k += st.hand[s].act[a];
        }
        return k;
    }

    static bool table_point(const State& st) { return st.core.phase == PLAY && st.core.trick_len == 0; }

    static uint64_t key(const State& st) {
        Hasher h;
        const Core& c = st.core;
        int flags = st.plus_minus_one | st.secret << 1 | st.any_order << 2 | st.marching << 3;
        h.add(uint64_t(c.turn) | uint64_t(c.trick_no) << 8 | uint64_t(uint8_t(c.trump)) << 16 |
              uint64_t(c.bid_count) << 24 | uint64_t(c.played_any) << 32 | uint64_t(c.next_bidder) << 40 |
              uint64_t(flags) << 48 | uint64_t(st.dealer) << 52 | uint64_t(st.n) << 56);
        h.add(uint64_t(st.hs));
        for (int s = 0; s < st.n; ++s) {
            const Hand& hd = st.hand[s];
            h.add(uint64_t(hd.col[0]) | uint64_t(hd.col[1]) << 16 | uint64_t(hd.col[2]) << 32 |
                  uint64_t(hd.col[3]) << 48);
            uint64_t acts = 0;
            for (int k = 0; k < ACTIONS; ++k) acts |= uint64_t(hd.act[k]) << (4 * k);
            h.add(uint64_t(hd.col[4]) | uint64_t(hd.col[5]) << 16 | acts << 32);
            h.add(uint64_t(uint8_t(c.bids[s])) | uint64_t(c.won[s]) << 8 | uint64_t(c.plus5[s]) << 16 |
                  uint64_t(c.minus5[s]) << 24);
        }
        uint64_t pile = 0;
        for (int k = 0; k < COLOURS; ++k) pile |= uint64_t(c.pile_col[k]) << (5 * k);
        h.add(pile);
        return h.value();
    }

    // The most `seat` can still score: any number of the tricks left, the exact bid if it is
    // still reachable (or any bid, not yet made), every +5 card still in play and no -5.
    static double bound(const State& st, int seat) {
        const Core& c = st.core;
        int left = st.hs - c.trick_no;
        int plus = 0;
        for (int s = 0; s < st.n; ++s) plus += st.hand[s].act[PLUS5];
        for (int i = 0; i < c.trick_len; ++i)
            if (c.trick_card[i] == 96 + PLUS5) ++plus;
        int best = -1000;
        for (int w = c.won[seat]; w <= c.won[seat] + left; ++w) {
            bool marching = st.marching && st.hs > 1 && w == st.hs;
            int base = w * (marching ? 2 : 1);
            bool exact = c.bids[seat] < 0 || c.bids[seat] == w;
            best = std::max(best, exact ? base + 10 : base - 5);
        }
        return best + 5 * (c.plus5[seat] + plus) - 5 * c.minus5[seat];
    }

    static std::vector<int> winners(const State& st) { return {st.core.last_winner}; }
};

}  // namespace tl
