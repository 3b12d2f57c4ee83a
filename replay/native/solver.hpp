// The perfect-information solver and the playout policies, written once for every game.
//
// The solution concept is the Python judge's (replay/search.py): max^n over the rest of the
// round, every player maximising their own round score (minimising it where the lowest total
// wins, G::SIGN = -1). When several of the mover's moves are equally good for the mover
// (within TIE_EPS points) the position's value is the MEAN of those moves' value vectors,
// each of the game's own moves counted once (so a merged move counts as many times as the
// moves it stands for: the value does not depend on the order of the moves or on the
// merging). A chance event (rage's trump turned after a CHANGE or a NOTRUMP trick) is valued
// as the expectation over its outcomes.
//
// What makes it fast, after the shape of double-dummy solvers: a transposition table asked
// where a trick starts (a position reached by other orders of play in earlier tricks is
// solved once); equivalent cards merged (G::merge); and move ordering with pruning: the
// mover's moves are tried best-first by the greedy bot's score, and a move whose optimistic
// bound (G::bound) for the mover is already worse than the best found cannot be among the
// tied best, so its subtree is skipped. None of this changes a value.
#pragma once

#include <algorithm>
#include <limits>
#include <memory>

#include "common.hpp"

namespace tl {

constexpr double TIE_EPS = 1e-9;

struct BudgetExceeded {};

template <class G>
class Solver {
public:
    using State = typename G::State;

    // A table of 2^table_bits entries at most, allocated when first needed and no larger than
    // the budget calls for (a small solve does not pay for a large table).
    explicit Solver(int n, size_t table_bits = 16) : n_(n), max_bits_(table_bits) {}

    long nodes() const { return nodes_; }
    long hits() const { return hits_; }
    long pruned() const { return pruned_; }

    // Forget every stored position (another deal's positions are other positions, but a
    // stored value stays right for its position: this only bounds what one call keeps).
    void clear() {
        if (++gen_ == 0) {
            std::fill(gens_.begin(), gens_.end(), 0);
            gen_ = 1;
        }
    }

    // Start afresh, the table sized for `budget` positions (at most 2^table_bits entries):
    // whether a later call fits its budget then depends on that call's position alone, not
    // on what earlier calls left in the table (the judge's judgements are reproducible).
    void reset(long budget) {
        size_t size = size_t(1) << table_bits_for(budget);
        if (keys_.size() != size) {
            keys_.assign(size, 0);
            gens_.assign(size, 0);
            values_.assign(size * size_t(n_), 0.0);
            mask_ = size - 1;
            gen_ = 1;
        } else {
            clear();
        }
    }

    // The value vector of the position after each of `moves` (moves of the mover, legal in
    // `st`), every player then playing perfectly for themselves. Throws BudgetExceeded when
    // more than `budget` positions are visited in all.
    std::vector<Scores> values_after(const State& start, const std::vector<Move>& moves, long budget) {
        State st = start;
        begin(budget);
        std::vector<Scores> out;
        for (Move m : moves) {
            typename G::Undo u;
            G::make(st, m, u);
            out.push_back(solve(st));
            G::unmake(st, m, u);
        }
        return out;
    }

    Scores value(const State& start, long budget) {
        State st = start;
        begin(budget);
        return solve(st);
    }

private:
    int n_;
    size_t max_bits_;
    size_t mask_ = 0;
    std::vector<uint64_t> keys_;
    std::vector<uint32_t> gens_;
    std::vector<double> values_;
    uint32_t gen_ = 1;
    long nodes_ = 0, budget_ = 0, hits_ = 0, pruned_ = 0;

    size_t table_bits_for(long budget) const {
        size_t bits = 10;
        while (bits < max_bits_ && (long(1) << bits) < budget) ++bits;
        return bits;
    }

    void begin(long budget) {
        nodes_ = 0;
        budget_ = budget;
        size_t size = size_t(1) << table_bits_for(budget);
        if (keys_.size() < size) {
            keys_.assign(size, 0);
            gens_.assign(size, 0);
            values_.assign(size * size_t(n_), 0.0);
            mask_ = size - 1;
        }
    }

    bool probe(uint64_t key, Scores& out) {
        size_t i = size_t(key) & mask_;
        if (gens_[i] != gen_ || keys_[i] != key) return false;
        out.fill(0.0);
        for (int s = 0; s < n_; ++s) out[s] = values_[i * size_t(n_) + size_t(s)];
        ++hits_;
        return true;
    }
    void store(uint64_t key, const Scores& v) {
        size_t i = size_t(key) & mask_;
        keys_[i] = key;
        gens_[i] = gen_;
        for (int s = 0; s < n_; ++s) values_[i * size_t(n_) + size_t(s)] = v[s];
    }

    Scores solve(State& st) {
        if (++nodes_ > budget_) throw BudgetExceeded{};
        Scores out;
        Status status = G::status(st);
        if (status == OVER) {
            G::scores(st, out);
            return out;
        }
        if (status == CHANCE) {
            ChanceList outcomes;
            G::chance_outcomes(st, outcomes);
            out.fill(0.0);
            for (int i = 0; i < outcomes.size; ++i) {
                typename G::Undo u;
                G::make(st, outcomes.moves[i], u);
                Scores v = solve(st);
                G::unmake(st, outcomes.moves[i], u);
                for (int s = 0; s < n_; ++s) out[s] += outcomes.prob[i] * v[s];
            }
            return out;
        }
        bool table = G::table_point(st);
        uint64_t key = 0;
        if (table) {
            key = G::key(st);
            if (probe(key, out)) return out;
        }
        MoveList raw, moves;
        G::choices(st, raw);
        if (raw.size == 0) throw std::logic_error(std::string(G::NAME) + ": a position with no move");
        int p = G::mover(st);
        if (raw.size == 1) {
            typename G::Undo u;
            G::make(st, raw.moves[0], u);
            out = solve(st);
            G::unmake(st, raw.moves[0], u);
        } else {
            G::merge(st, raw, moves);
            out = best_of(st, moves, p);
        }
        if (table) store(key, out);
        return out;
    }

    // Scratch for best_of, used as a stack (the recursion is last in, first out): a node
    // takes as many entries as it has moves, so that the C++ stack stays small at any depth.
    std::vector<Scores> scratch_values_;
    std::vector<double> scratch_scores_;
    std::vector<int> scratch_order_;
    std::vector<char> scratch_done_;
    size_t top_ = 0;

    Scores best_of(State& st, const MoveList& moves, int p) {
        int k = moves.size;
        size_t base = top_;
        top_ += size_t(k);
        if (scratch_values_.size() < top_) {
            size_t grow = std::max(top_, 2 * scratch_values_.size());
            scratch_values_.resize(grow);
            scratch_scores_.resize(grow);
            scratch_order_.resize(grow);
            scratch_done_.resize(grow);
        }
        struct Pop {  // gives the scratch back however this node is left (BudgetExceeded)
            size_t& top;
            size_t base;
            ~Pop() { top = base; }
        } pop{top_, base};
        int* order = &scratch_order_[base];
        double* score = &scratch_scores_[base];
        // best-first by the greedy bot's score: a good move found early lets the bound cut
        // the others
        G::scores_of(st, moves, score);
        for (int i = 0; i < k; ++i) order[i] = i;
        std::stable_sort(order, order + k, [score](int a, int b) { return score[a] > score[b]; });
        double best = -std::numeric_limits<double>::infinity();
        for (int j = 0; j < k; ++j) {
            int i = order[j];
            Move m = moves.moves[i];
            typename G::Undo u;
            G::make(st, m, u);
            bool worth = G::bound(st, p) >= best - TIE_EPS;
            scratch_done_[base + size_t(i)] = worth;
            if (worth) {
                Scores v = solve(st);  // may grow the scratch: index it afresh
                scratch_values_[base + size_t(i)] = v;
                best = std::max(best, G::SIGN * v[p]);
            } else {
                ++pruned_;
            }
            G::unmake(st, m, u);
            order = &scratch_order_[base];
        }
        Scores out;
        out.fill(0.0);
        double weight = 0.0;
        for (int i = 0; i < k; ++i) {
            const Scores& v = scratch_values_[base + size_t(i)];
            if (!scratch_done_[base + size_t(i)] || G::SIGN * v[p] < best - TIE_EPS) continue;
            double w = moves.weight[i];
            weight += w;
            for (int s = 0; s < n_; ++s) out[s] += w * v[s];
        }
        for (int s = 0; s < n_; ++s) out[s] /= weight;
        return out;
    }
};

// ---------------------------------------------------------------- playout policies
// As replay/bots.py defines them: random is uniform over the mover's moves; greedy plays the
// move with the best heuristic score, ties broken uniformly at random.
enum Policy : int { RANDOM = 0, GREEDY = 1 };

template <class G>
Move choose(const typename G::State& st, Policy policy, Rng& rng) {
    MoveList moves;
    G::choices(st, moves);
    if (moves.size == 0) throw std::logic_error(std::string(G::NAME) + ": a position with no move");
    if (moves.size == 1) return moves.moves[0];
    if (policy == RANDOM) return moves.moves[rng.below(uint32_t(moves.size))];
    double score[MoveList::CAP];
    G::scores_of(st, moves, score);
    int best = 0, ties = 1;
    double best_score = score[0];
    for (int i = 1; i < moves.size; ++i) {
        double v = score[i];
        if (v > best_score) {
            best = i;
            best_score = v;
            ties = 1;
        } else if (v == best_score) {
            ++ties;
            if (rng.below(uint32_t(ties)) == 0) best = i;
        }
    }
    return moves.moves[best];
}

// Play `st` to the end of its round by `policy` in every seat, chance events drawn from
// `rng`. With a solver: once no more than `endgame_cards` cards are left in the hands where a
// trick starts, the rest of the round is solved instead, if it fits `endgame_budget`
// positions (tried once: a rest that does not fit is played out to its end).
template <class G>
Scores playout(typename G::State st, Policy policy, Rng& rng, Solver<G>* solver = nullptr,
               long endgame_budget = 0, int endgame_cards = -1) {
    bool tried = false;
    for (int steps = 0; steps < 100000; ++steps) {
        Status status = G::status(st);
        if (status == OVER) {
            Scores out;
            G::scores(st, out);
            return out;
        }
        if (solver && !tried && status == DECIDE && G::table_point(st) && G::cards_left(st) <= endgame_cards) {
            tried = true;
            try {
                return solver->value(st, endgame_budget);
            } catch (const BudgetExceeded&) {
            }
        }
        Move m = status == CHANCE ? G::chance_draw(st, rng) : choose<G>(st, policy, rng);
        typename G::Undo u;
        G::make(st, m, u);
    }
    throw std::logic_error(std::string(G::NAME) + ": a playout did not end");
}

}  // namespace tl
