// MAR's answer: P(X = x | e) per variable and state, in one allocation. A batch builds and frees
// thousands of answers, and a vector per variable cost microseconds a case (pathfinder has 109
// variables); this reads as a vector of rows: m.size(), m[v][x], for (auto row : m).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

class Marginals {
  public:
    size_t size() const { return rowBegin_.size() - 1; }
    bool empty() const { return size() == 0; }
    std::span<const double> operator[](size_t v) const {
        return {values_.data() + rowBegin_[v], rowBegin_[v + 1] - rowBegin_[v]};
    }
    std::span<double> operator[](size_t v) {
        return {values_.data() + rowBegin_[v], rowBegin_[v + 1] - rowBegin_[v]};
    }

    // `rows` rows of zeros, row v of sizeOf(v) values, to fill in: one fill, where rows added one
    // at a time cost a resize each (a tenth of a batch's host time on alarm).
    template <class SizeOf> void assignZeros(size_t rows, const SizeOf &sizeOf) {
        rowBegin_.resize(rows + 1);
        rowBegin_[0] = 0;
        for (size_t v = 0; v < rows; ++v)
            rowBegin_[v + 1] = rowBegin_[v] + sizeOf(v);
        values_.assign(rowBegin_[rows], 0.0);
    }
    void push_back(std::span<const double> row) {
        values_.insert(values_.end(), row.begin(), row.end());
        rowBegin_.push_back(values_.size());
    }
    void clear() {
        values_.clear();
        rowBegin_.assign(1, 0);
    }

    class Iterator {
      public:
        Iterator(const Marginals *m, size_t v) : m_(m), v_(v) {}
        std::span<const double> operator*() const { return (*m_)[v_]; }
        Iterator &operator++() {
            ++v_;
            return *this;
        }
        bool operator==(const Iterator &) const = default;

      private:
        const Marginals *m_;
        size_t v_;
    };
    Iterator begin() const { return {this, 0}; }
    Iterator end() const { return {this, size()}; }

    bool operator==(const Marginals &) const = default;

  private:
    std::vector<double> values_;
    std::vector<size_t> rowBegin_{0}; // row v is values_[rowBegin_[v], rowBegin_[v + 1])
};

} // namespace zbddc
