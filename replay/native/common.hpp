// The native analysis engine's shared parts: moves, move lists, the random stream, hashing.
//
// The rules stay in Python (replay/games/): this engine is a fast second implementation of
// the rest of one round, for playouts and the perfect-information solver, checked against
// the Python rules position by position (tests/units/test_native_differential.py).
//
// A game is a struct with a State, an Undo record and static functions (see plotters.hpp for
// the list); solver.hpp is written once against that shape.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace tl {

constexpr int MAX_SEATS = 8;
using Scores = std::array<double, MAX_SEATS>;

// A move: its type, the seat that makes it and a game-specific payload (a card, a set of
// trick positions, a bid), packed in 32 bits. The Python side (each game module's
// native codec) writes and reads the same packing.
using Move = uint32_t;
enum MoveType : uint32_t {
    PLAY = 1, TAKE = 2, KEEP = 3, BID = 4, PLACE = 5, DRAW = 6, TURN = 7,  // TURN: a chance card
};

constexpr Move make_move(uint32_t type, int seat, uint32_t payload) {
    return (type << 24) | (uint32_t(seat) << 16) | (payload & 0xFFFFu);
}
constexpr uint32_t move_type(Move m) { return m >> 24; }
constexpr int move_seat(Move m) { return int((m >> 16) & 0xFFu); }
constexpr uint32_t move_payload(Move m) { return m & 0xFFFFu; }

// Where a round stands: a player's decision, a chance event (rage's turned trump), or over.
enum Status : int { DECIDE = 0, CHANCE = 1, OVER = 2 };

struct MoveList {
    static constexpr int CAP = 128;  // rage: every bid of every seat that may bid, 8 x 11, and the plays
    Move moves[CAP];
    int weight[CAP];  // how many of the game's own moves one merged move stands for
    int size = 0;
    void clear() { size = 0; }
    void add(Move m, int w = 1) {
        if (size >= CAP) throw std::logic_error("move list overflow");
        moves[size] = m;
        weight[size] = w;
        ++size;
    }
};

// A chance event's outcomes with their probabilities.
struct ChanceList {
    static constexpr int CAP = 16;
    Move moves[CAP];
    double prob[CAP];
    int size = 0;
    void clear() { size = 0; }
    void add(Move m, double p) {
        if (size >= CAP) throw std::logic_error("chance list overflow");
        moves[size] = m;
        prob[size] = p;
        ++size;
    }
};

// xoshiro256** seeded through splitmix64: a fast stream of our own (the playouts need not
// repeat Python's Mersenne Twister draw for draw, only its policies).
struct Rng {
    uint64_t s[4];
    explicit Rng(uint64_t seed = 0) { reseed(seed); }
    static uint64_t splitmix(uint64_t& x) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    void reseed(uint64_t seed) {
        uint64_t x = seed;
        for (auto& v : s) v = splitmix(x);
    }
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t next() {
        uint64_t result = rotl(s[1] * 5, 7) * 9;
        uint64_t t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
    }
    // uniform in [0, n), n > 0 (Lemire's multiply-shift, with rejection: unbiased)
    uint32_t below(uint32_t n) {
        uint64_t m = uint64_t(uint32_t(next() >> 32)) * n;
        uint32_t low = uint32_t(m);
        if (low < n) {
            uint32_t threshold = uint32_t(-n) % n;
            while (low < threshold) {
                m = uint64_t(uint32_t(next() >> 32)) * n;
                low = uint32_t(m);
            }
        }
        return uint32_t(m >> 32);
    }
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
};

// Hashing a position for the transposition table: the fields that decide the rest of the
// round are fed in one at a time and mixed (computed when a trick starts, where the table
// is asked, rather than kept up to date move by move).
struct Hasher {
    uint64_t h = 0x243F6A8885A308D3ull;
    static uint64_t mix(uint64_t x) {
        x ^= x >> 33;
        x *= 0xFF51AFD7ED558CCDull;
        x ^= x >> 33;
        x *= 0xC4CEB9FE1A85EC53ull;
        x ^= x >> 33;
        return x;
    }
    void add(uint64_t v) { h = mix(h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2))); }
    uint64_t value() const { return mix(h ^ 0x13198A2E03707344ull); }
};

inline int popcount(uint64_t x) { return __builtin_popcountll(x); }
inline int lowest_bit(uint64_t x) { return __builtin_ctzll(x); }
inline int highest_bit(uint64_t x) { return 63 - __builtin_clzll(x); }

// Reading a position's numbers (what a game module's encoder wrote) with bounds checked: a
// malformed position is a ValueError in Python, never a read past the end.
struct Reader {
    const std::vector<int64_t>& v;
    size_t i = 0;
    const char* game;
    Reader(const std::vector<int64_t>& values, const char* g) : v(values), game(g) {}
    int64_t next(int64_t lo, int64_t hi, const char* what) {
        if (i >= v.size())
            throw std::invalid_argument(std::string(game) + " position: ended before " + what);
        int64_t x = v[i++];
        if (x < lo || x > hi)
            throw std::invalid_argument(std::string(game) + " position: " + what + " is " +
                                        std::to_string(x) + ", expected " + std::to_string(lo) +
                                        ".." + std::to_string(hi));
        return x;
    }
    void done() const {
        if (i != v.size())
            throw std::invalid_argument(std::string(game) + " position: " +
                                        std::to_string(v.size() - i) + " numbers too many");
    }
};

}  // namespace tl
