#include <chrono>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <random>
#include <algorithm>
// stream loop with data-dependent exit: one long segment vs many segments of length L across M separate arrays
int main(int argc,char**argv){ size_t total=8800000; int L=atoi(argv[1]);
  size_t lists=total/L/61+1; // emulate: lists each with 61 segments of L
  std::vector<std::vector<uint32_t>> ids(lists); std::vector<std::vector<uint8_t>> cs(lists);
  for(size_t w=0;w<lists;++w){ids[w].resize(61*L); cs[w].resize(61*L,1); for(size_t i=0;i<ids[w].size();++i) ids[w][i]=(i/L)*16384+ (i%L);}
  std::vector<size_t> next(lists,0);
  for(int r=0;r<5;++r){ std::fill(next.begin(),next.end(),0); auto t=std::chrono::steady_clock::now(); uint64_t s=0;
    for(int b=0;b<61;++b){ uint32_t e=(b+1)*16384; for(size_t w=0;w<lists;++w){ size_t i=next[w]; const uint32_t* id=ids[w].data(); const uint8_t* c=cs[w].data(); size_t n=ids[w].size();
      for(;i<n&&id[i]<e;++i) s+=id[i]+c[i]; next[w]=i;}}
    double d=std::chrono::duration<double>(std::chrono::steady_clock::now()-t).count(); printf("L %d lists %zu: %.2f ms %.2f ns/posting %lu\n",L,lists,d*1e3,d*1e9/(61.0*L*lists),s);} }
