// trickledger.replay._native: the native analysis engine, bound to Python with pybind11.
//
// A position of a game is made from the numbers its game module's encoder writes
// (GameInfo.native, replay/native/__init__.py): `position(game, numbers)`. Moves are the
// 32-bit codes of common.hpp, which the same game module writes and reads. The calls that
// do real work (solve, playouts, evaluate) release the GIL.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "color_stacks.hpp"
#include "plotters.hpp"
#include "rage.hpp"
#include "solver.hpp"
#include "under_the_radar.hpp"

namespace py = pybind11;
using namespace tl;

namespace {

std::vector<double> to_list(const Scores& s, int n) { return std::vector<double>(s.begin(), s.begin() + n); }

template <class G>
int players(const typename G::State& st) { return st.n; }

Policy policy_of(const std::string& name) {
    if (name == "random") return RANDOM;
    if (name == "greedy") return GREEDY;
    throw std::invalid_argument("unknown playout policy '" + name + "' (random, greedy)");
}

template <class G>
std::vector<Move> list_of(const MoveList& l) {
    return std::vector<Move>(l.moves, l.moves + l.size);
}

template <class G>
bool is_legal(const typename G::State& st, Move m) {
    MoveList l;
    if (G::status(st) == CHANCE) {
        ChanceList c;
        G::chance_outcomes(st, c);
        for (int i = 0; i < c.size; ++i)
            if (c.moves[i] == m) return true;
        // a draw of an action card is an outcome of a real draw too
        return move_type(m) == TURN;
    }
    G::legal(st, l);
    for (int i = 0; i < l.size; ++i)
        if (l.moves[i] == m) return true;
    return false;
}

// One position of game G, with the moves played on it since it was made (for `undo`).
template <class G>
class Position {
public:
    using State = typename G::State;
    explicit Position(const std::vector<int64_t>& numbers) : st_(G::parse(numbers)) {}
    explicit Position(const State& st) : st_(st) {}

    std::vector<int64_t> numbers() const { return G::numbers(st_); }
    int status() const { return int(G::status(st_)); }
    int mover() const { return G::mover(st_); }
    int players() const { return st_.n; }
    std::vector<Move> choices() const {
        MoveList l;
        G::choices(st_, l);
        return list_of<G>(l);
    }
    std::vector<Move> legal_moves() const {
        MoveList l;
        G::legal(st_, l);
        return list_of<G>(l);
    }
    std::vector<std::pair<Move, int>> merged_choices() const {
        MoveList raw, merged;
        G::choices(st_, raw);
        G::merge(st_, raw, merged);
        std::vector<std::pair<Move, int>> out;
        for (int i = 0; i < merged.size; ++i) out.emplace_back(merged.moves[i], merged.weight[i]);
        return out;
    }
    std::vector<std::pair<Move, double>> chance_outcomes() const {
        ChanceList c;
        if (G::status(st_) == CHANCE) G::chance_outcomes(st_, c);
        std::vector<std::pair<Move, double>> out;
        for (int i = 0; i < c.size; ++i) out.emplace_back(c.moves[i], c.prob[i]);
        return out;
    }
    void play(Move m) {
        if (G::status(st_) == OVER) throw std::invalid_argument(std::string(G::NAME) + ": the round is over");
        if (!is_legal<G>(st_, m))
            throw std::invalid_argument(std::string(G::NAME) + ": move " + std::to_string(m) + " is not legal here");
        undo_.emplace_back(m, typename G::Undo{});
        G::make(st_, m, undo_.back().second);
    }
    void undo() {
        if (undo_.empty()) throw std::invalid_argument("no move to take back");
        G::unmake(st_, undo_.back().first, undo_.back().second);
        undo_.pop_back();
    }
    std::vector<double> scores() const {
        if (G::status(st_) != OVER) throw std::invalid_argument(std::string(G::NAME) + ": the round is not over");
        Scores s;
        G::scores(st_, s);
        return to_list(s, st_.n);
    }
    std::vector<int> winners() const { return G::winners(st_); }
    double heuristic(Move m) const { return G::heuristic(st_, m); }
    uint64_t key() const { return G::key(st_); }
    Move draw(uint64_t seed) const {
        Rng rng(seed);
        return G::chance_draw(st_, rng);
    }
    bool table_point() const { return G::table_point(st_); }
    double bound(int seat) const { return G::bound(st_, seat); }

    // The value vectors after each of `moves` (or of the position itself, `moves` None), every
    // player then playing perfectly; None beyond `budget` positions. Also the positions visited.
    std::pair<std::optional<std::vector<std::vector<double>>>, long> solve(std::optional<std::vector<Move>> moves,
                                                                         long budget, int table_bits) const {
        for (Move m : moves.value_or(std::vector<Move>{}))
            if (!is_legal<G>(st_, m)) throw std::invalid_argument(std::string(G::NAME) + ": an alternative is not legal");
        if (table_bits < 10 || table_bits > 26) throw std::invalid_argument("solve: table_bits is 10..26");
        py::gil_scoped_release release;
        Solver<G> solver(st_.n, size_t(table_bits));
        std::vector<std::vector<double>> out;
        try {
            if (moves) {
                for (const Scores& v : solver.values_after(st_, *moves, budget)) out.push_back(to_list(v, st_.n));
            } else {
                out.push_back(to_list(solver.value(st_, budget), st_.n));
            }
        } catch (const BudgetExceeded&) {
            return {std::nullopt, solver.nodes()};
        }
        return {out, solver.nodes()};
    }

    std::vector<double> playout(const std::string& policy, uint64_t seed) const {
        Policy pol = policy_of(policy);
        py::gil_scoped_release release;
        Rng rng(seed);
        return to_list(tl::playout<G>(st_, pol, rng), st_.n);
    }

    // `count` playouts from here (seeds seed, seed + 1, ...): the mean scores. The bench's
    // measure of playouts per second.
    std::vector<double> playouts(const std::string& policy, uint64_t seed, long count) const {
        Policy pol = policy_of(policy);
        py::gil_scoped_release release;
        Scores sum;
        sum.fill(0.0);
        for (long i = 0; i < count; ++i) {
            Rng rng(seed + uint64_t(i));
            Scores s = tl::playout<G>(st_, pol, rng);
            for (int k = 0; k < st_.n; ++k) sum[k] += s[k];
        }
        std::vector<double> out = to_list(sum, st_.n);
        for (double& x : out) x /= double(count > 0 ? count : 1);
        return out;
    }

    const State& state() const { return st_; }

private:
    State st_;
    std::vector<std::pair<Move, typename G::Undo>> undo_;
};

// One solver per game and thread, kept between calls (its table is allocated once); each
// call of `evaluate` starts it afresh (Solver::reset), so that whether a sample fits the budget
// does not depend on earlier calls: the same decision gets the same judgement in any order.
template <class G>
Solver<G>& solver_for(int n, int table_bits) {
    thread_local std::unique_ptr<Solver<G>> kept[MAX_SEATS + 1][32];
    std::unique_ptr<Solver<G>>& s = kept[n][table_bits];
    if (!s) s.reset(new Solver<G>(n, size_t(table_bits)));
    return *s;
}

// The judge's work on one decision: for each sample of the hidden cards (a position), the
// value for `seat` after each alternative. A sample is solved exactly when the rest of the
// round fits `budget` positions (`exact[k]`); otherwise each alternative is played out by
// `policy` with the same random stream per sample (common random numbers: the k-th sample's
// stream is seeded with seeds[k]), the rest of the round solved where a trick starts with at
// most `endgame_cards` cards in the hands, if it fits `endgame_budget` positions.
template <class G>
py::tuple evaluate(const std::vector<std::vector<int64_t>>& positions, const std::vector<Move>& moves, int seat,
                   long budget, const std::string& policy, const std::vector<uint64_t>& seeds, long endgame_budget,
                   int endgame_cards, int table_bits) {
    Policy pol = policy_of(policy);
    if (seeds.size() != positions.size()) throw std::invalid_argument("evaluate: one seed per sample");
    if (table_bits < 10 || table_bits > 26) throw std::invalid_argument("evaluate: table_bits is 10..26");
    std::vector<typename G::State> states;
    for (const auto& numbers : positions) {
        states.push_back(G::parse(numbers));
        if (seat < 0 || seat >= states.back().n) throw std::invalid_argument("evaluate: no such seat");
        if (states.back().n != states.front().n) throw std::invalid_argument("evaluate: samples of one table");
        for (Move m : moves)
            if (!is_legal<G>(states.back(), m))
                throw std::invalid_argument(std::string(G::NAME) + ": an alternative is not legal in a sample");
    }
    std::vector<std::vector<double>> values(moves.size(), std::vector<double>(states.size(), 0.0));
    std::vector<bool> exact(states.size(), false);
    long nodes = 0;
    if (states.empty()) return py::make_tuple(values, exact, nodes);
    {
        py::gil_scoped_release release;
        Solver<G>& solver = solver_for<G>(states[0].n, table_bits);
        solver.reset(std::max(budget, endgame_budget));
        for (size_t k = 0; k < states.size(); ++k) {
            bool solved = false;
            if (budget > 0) {
                try {
                    std::vector<Scores> v = solver.values_after(states[k], moves, budget);
                    for (size_t a = 0; a < moves.size(); ++a) values[a][k] = v[a][seat];
                    solved = true;
                } catch (const BudgetExceeded&) {
                }
                nodes += solver.nodes();
            }
            exact[k] = solved;
            if (solved) continue;
            // Alternatives that lead to the same position where a trick starts (plotters' picks
            // of the same colours, color_stacks' placements of the same suits) are played out
            // once: with the same random stream the playouts are the same.
            std::vector<std::pair<uint64_t, size_t>> done;
            for (size_t a = 0; a < moves.size(); ++a) {
                typename G::State branch = states[k];
                typename G::Undo u;
                G::make(branch, moves[a], u);
                bool keyed = G::status(branch) == DECIDE && G::table_point(branch);
                uint64_t key = keyed ? G::key(branch) : 0;
                size_t same = a;
                if (keyed)
                    for (const auto& [other_key, other] : done)
                        if (other_key == key) same = other;
                if (same != a) {
                    values[a][k] = values[same][k];
                    continue;
                }
                if (keyed) done.emplace_back(key, a);
                Rng rng(seeds[k]);
                Scores s = tl::playout<G>(branch, pol, rng, endgame_budget > 0 ? &solver : nullptr, endgame_budget,
                                          endgame_cards);
                values[a][k] = s[seat];
            }
        }
    }
    return py::make_tuple(values, exact, nodes);
}

template <class G>
void bind_game(py::module_& m, const char* class_name) {
    using P = Position<G>;
    py::class_<P>(m, class_name)
        .def(py::init<const std::vector<int64_t>&>(), py::arg("numbers"))
        .def("numbers", &P::numbers, "the position as its game module's encoder writes it")
        .def("status", &P::status, "0: a player decides, 1: a chance event is due, 2: the round is over")
        .def("mover", &P::mover, "the seat whose decision comes next (-1: none)")
        .def("players", &P::players)
        .def("choices", &P::choices, "the mover's moves, in the Python game's choices() order")
        .def("legal_moves", &P::legal_moves, "every legal move, any player's")
        .def("merged_choices", &P::merged_choices, "the mover's moves with equivalent ones merged: (move, how many)")
        .def("chance_outcomes", &P::chance_outcomes, "a due chance event's outcomes: (move, probability)")
        .def("play", &P::play, py::arg("move"))
        .def("undo", &P::undo)
        .def("scores", &P::scores, "the round's scores by seat, once it is over")
        .def("winners", &P::winners, "the last finished trick's winners")
        .def("heuristic", &P::heuristic, py::arg("move"), "the greedy bot's score of a move")
        .def("key", &P::key, "the transposition table's key of the position")
        .def("table_point", &P::table_point)
        .def("bound", &P::bound, py::arg("seat"))
        .def("draw", &P::draw, py::arg("seed"), "a chance event drawn")
        .def("solve", &P::solve, py::arg("moves"), py::arg("budget"), py::arg("table_bits") = 16,
             "(value vectors after each move, or None beyond the budget; positions visited)")
        .def("playout", &P::playout, py::arg("policy"), py::arg("seed"))
        .def("playouts", &P::playouts, py::arg("policy"), py::arg("seed"), py::arg("count"))
        .def("copy", [](const P& p) { return P(p.state()); });
    m.def((std::string("evaluate_") + G::NAME).c_str(), &evaluate<G>, py::arg("positions"), py::arg("moves"),
          py::arg("seat"), py::arg("budget"), py::arg("policy"), py::arg("seeds"), py::arg("endgame_budget"),
          py::arg("endgame_cards"), py::arg("table_bits"));
}

}  // namespace

PYBIND11_MODULE(_native, m) {
    m.doc() = "trickledger's native analysis engine: positions, playouts and the perfect-information "
              "solver of plotters, rage, color_stacks and under_the_radar (replay/native)";
    py::register_exception<std::invalid_argument>(m, "PositionError", PyExc_ValueError);
    bind_game<Plotters>(m, "PlottersPosition");
    bind_game<Rage>(m, "RagePosition");
    bind_game<ColorStacks>(m, "ColorStacksPosition");
    bind_game<UnderTheRadar>(m, "UnderTheRadarPosition");
    m.def(
        "position",
        [](const std::string& rules, const std::vector<int64_t>& numbers) -> py::object {
            if (rules == Plotters::NAME) return py::cast(Position<Plotters>(numbers));
            if (rules == Rage::NAME) return py::cast(Position<Rage>(numbers));
            if (rules == ColorStacks::NAME) return py::cast(Position<ColorStacks>(numbers));
            if (rules == UnderTheRadar::NAME) return py::cast(Position<UnderTheRadar>(numbers));
            throw std::invalid_argument("the native engine has no rules named '" + rules + "'");
        },
        py::arg("rules"), py::arg("numbers"), "a position of the game played by `rules`");
    m.attr("GAMES") = py::make_tuple(Plotters::NAME, Rage::NAME, ColorStacks::NAME, UnderTheRadar::NAME);
    m.attr("TIE_EPS") = TIE_EPS;
#ifdef TRICKLEDGER_SANITIZE
    m.attr("SANITIZED") = true;
#else
    m.attr("SANITIZED") = false;
#endif
}
