// A vocabulary trained by the ranks of an MPI job, each holding its own part of the sample:
//   mpirun -np R ./distributed_training_example
// Every rank gets the same vocabulary, which is the one a single process trains on the whole sample
// (bovw::trainVocabulary with the same seed): rank 0 checks that and prints one line. The sample here
// is random, 2,000 rows of 64 floats per rank; in an application each rank would extract its images.
#include <bovw/kmeans.hpp>
#include <bovw/mpi_communicator.hpp>

#include <iostream>
#include <random>

namespace {

bovw::Descriptors rowsOfRank(int rank) {
  std::mt19937_64 rng(1000 + static_cast<unsigned>(rank));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  bovw::Descriptors rows(2000, 64);
  for (Eigen::Index i = 0; i < rows.size(); ++i) rows.data()[i] = value(rng);
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  bovw::MpiSession mpi(argc, argv);  // MPI_Init_thread now, MPI_Finalize at the end
  bovw::Communicator& ranks = mpi.world();
  bovw::KMeansOptions options;
  options.words = 100;
  options.seed = 7;
  const bovw::Vocabulary words = bovw::trainVocabulary(rowsOfRank(ranks.rank()), options, ranks);
  if (ranks.rank() != 0) return 0;

  // The single-process reference: every rank's rows, in rank order, in one process.
  bovw::Descriptors all(0, 64);
  for (int r = 0; r < ranks.size(); ++r) {
    const bovw::Descriptors part = rowsOfRank(r);
    all.conservativeResize(all.rows() + part.rows(), Eigen::NoChange);
    all.bottomRows(part.rows()) = part;
  }
  const bool same = bovw::trainVocabulary(all, options).centroids() == words.centroids();
  std::cout << ranks.size() << " ranks trained " << words.size() << " words on " << all.rows()
            << " descriptors; " << (same ? "identical to" : "DIFFERENT from") << " one process\n";
  return same ? 0 : 1;
}
