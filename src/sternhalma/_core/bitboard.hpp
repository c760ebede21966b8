// Fixed-width bitboards: W 64-bit words, bit i = hole i.
// The star (121 holes) needs W = 2 (the width of an unsigned __int128), Halma's
// 16x16 board W = 4. Everything is inline so the compiler unrolls the word loops.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace sternhalma {

template <int W>
struct Bits {
    std::array<std::uint64_t, W> w{};

    static Bits bit(int i) {
        Bits b;
        b.w[i >> 6] = std::uint64_t{1} << (i & 63);
        return b;
    }
    bool test(int i) const { return (w[i >> 6] >> (i & 63)) & 1U; }
    void set(int i) { w[i >> 6] |= std::uint64_t{1} << (i & 63); }
    void flip(int i) { w[i >> 6] ^= std::uint64_t{1} << (i & 63); }
    // set(i) when `on`, without a branch (for conditions a branch mispredicts) and with
    // the words in registers (no store to a computed word).
    void set_if(int i, bool on) {
        const std::uint64_t bit = std::uint64_t{on} << (i & 63);
        for (int k = 0; k < W; ++k) w[k] |= (i >> 6) == k ? bit : 0;
    }
    bool any() const {
        std::uint64_t x = 0;
        for (int k = 0; k < W; ++k) x |= w[k];
        return x != 0;
    }
    // The lowest and the highest hole set (the board must not be empty).
    int lowest() const {
        for (int k = 0;; ++k)
            if (w[k]) return k * 64 + __builtin_ctzll(w[k]);
    }
    int highest() const {
        for (int k = W - 1;; --k)
            if (w[k]) return k * 64 + 63 - __builtin_clzll(w[k]);
    }
    int count() const {
        int n = 0;
        for (int k = 0; k < W; ++k) n += __builtin_popcountll(w[k]);
        return n;
    }
    // Word by word (std::array's == calls memcmp, not inlined).
    bool operator==(const Bits& o) const {
        std::uint64_t x = 0;
        for (int k = 0; k < W; ++k) x |= w[k] ^ o.w[k];
        return x == 0;
    }
    Bits operator&(const Bits& o) const {
        Bits r;
        for (int k = 0; k < W; ++k) r.w[k] = w[k] & o.w[k];
        return r;
    }
    Bits operator|(const Bits& o) const {
        Bits r;
        for (int k = 0; k < W; ++k) r.w[k] = w[k] | o.w[k];
        return r;
    }
    Bits operator^(const Bits& o) const {
        Bits r;
        for (int k = 0; k < W; ++k) r.w[k] = w[k] ^ o.w[k];
        return r;
    }
    Bits operator~() const {
        Bits r;
        for (int k = 0; k < W; ++k) r.w[k] = ~w[k];
        return r;
    }
    Bits& operator|=(const Bits& o) {
        for (int k = 0; k < W; ++k) w[k] |= o.w[k];
        return *this;
    }
    Bits& operator^=(const Bits& o) {
        for (int k = 0; k < W; ++k) w[k] ^= o.w[k];
        return *this;
    }
    // Calls f(hole) for every set bit, lowest first.
    template <class F>
    void each(F&& f) const {
        for (int k = 0; k < W; ++k) {
            std::uint64_t x = w[k];
            while (x) {
                f(k * 64 + __builtin_ctzll(x));
                x &= x - 1;
            }
        }
    }
    // The same, highest first.
    template <class F>
    void each_down(F&& f) const {
        for (int k = W - 1; k >= 0; --k) {
            std::uint64_t x = w[k];
            while (x) {
                const int top = 63 - __builtin_clzll(x);
                f(k * 64 + top);
                x ^= std::uint64_t{1} << top;
            }
        }
    }
};

// A hash of a bitboard, for the sets of positions seen (solo.hpp, capture.hpp).
template <int W>
struct BitsHash {
    std::size_t operator()(const Bits<W>& b) const {
        std::uint64_t h = 0x9E3779B97F4A7C15ULL;
        for (int k = 0; k < W; ++k) h = (h ^ b.w[static_cast<std::size_t>(k)]) * 0x100000001B3ULL;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

}  // namespace sternhalma
