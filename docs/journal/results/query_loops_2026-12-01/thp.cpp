#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>
int main(int argc,char**argv){ size_t n=(size_t)2750<<20; int huge=atoi(argv[1]);
  std::vector<char> src(64<<20,1);
  auto t=std::chrono::steady_clock::now();
  char* p=(char*)mmap(nullptr,n,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  if(huge) madvise(p,n,MADV_HUGEPAGE);
  for(size_t o=0;o<n;o+=src.size()) memcpy(p+o,src.data(),std::min(src.size(),n-o));
  double d=std::chrono::duration<double>(std::chrono::steady_clock::now()-t).count();
  FILE*f=fopen("/proc/self/smaps_rollup","r"); char line[256]; while(fgets(line,256,f)) if(strstr(line,"AnonHuge")) printf("%s",line);
  printf("huge %d: %.3f s\n",huge,d); }
