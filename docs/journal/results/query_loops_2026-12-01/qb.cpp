// Microbenchmark: the exhaustive query's loops at N images, current order-bound form vs quantized order-free form.
#include <immintrin.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
using namespace std;
struct List { bool dense=false; vector<uint32_t> ids; vector<uint8_t> counts; vector<uint8_t> dc; vector<uint32_t> bstart; vector<uint16_t> local; };
static double now(){return chrono::duration<double>(chrono::steady_clock::now().time_since_epoch()).count();}
int main(int argc,char**argv){
  size_t N = argc>1? atol(argv[1]) : 1000000; int K=65536; int Q = argc>2? atoi(argv[2]):20;
  int mode = argc>3? atoi(argv[3]) : 0; int sub = argc>4? atoi(argv[4]) : 2048; int half = argc>5? atoi(argv[5]):0; size_t GR = argc>6? atoi(argv[6]):8; int EXP = getenv("EXP")?atoi(getenv("EXP")):0;
  mt19937_64 rng(1);
  vector<double> w(K); double s=0; for(int r=0;r<K;++r){w[r]=pow(r+1.0,-0.8); s+=w[r];}
  // inclusion p = 1-exp(-lam w): solve sum p = 500
  double lo=0,hi=1e6; for(int it=0;it<100;++it){double m=(lo+hi)/2,t=0; for(int r=0;r<K;++r)t+=1-exp(-m*w[r]); (t>500?hi:lo)=m;}
  vector<double> p(K); for(int r=0;r<K;++r)p[r]=1-exp(-lo*w[r]);
  vector<int> perm(K); for(int i=0;i<K;++i)perm[i]=i; shuffle(perm.begin(),perm.end(),rng);
  // query words: rank r included w.p. p_r*0.7
  vector<int> qr; uniform_real_distribution<double> U(0,1);
  vector<vector<int>> queries(Q);
  for(int q=0;q<Q;++q) for(int r=0;r<K;++r) if(U(rng)<p[r]*0.7) queries[q].push_back(r);
  // build lists only for ranks used by any query
  vector<char> used(K,0); for(auto&v:queries)for(int r:v)used[r]=1;
  vector<List> lists(K); geometric_distribution<int> G(0.6);
  size_t post=0;
  for(int r=0;r<K;++r){ if(!used[r])continue; List&L=lists[r]; double pr=p[r];
    L.dense = pr>=0.2;
    if(L.dense){L.dc.assign(N,0); for(size_t i=0;i<N;++i) if(U(rng)<pr){L.dc[i]=min(15,1+G(rng)); post++;}}
    else { geometric_distribution<long> skip(pr); long i=-1; while(true){ i+= 1+skip(rng); if((size_t)i>=N)break; L.ids.push_back(i); L.counts.push_back(min(15,1+G(rng))); post++;} }
  }
  for(int r=0;r<K;++r){ List&L=lists[r]; if(L.dense||L.ids.empty())continue; size_t nb=(N+16383)/16384; L.bstart.assign(nb+1,0); L.local.resize(L.ids.size());
    for(size_t i=0;i<L.ids.size();++i){ L.local[i]=L.ids[i]&16383; L.bstart[(L.ids[i]>>14)+1]++; }
    for(size_t b=0;b<nb;++b) L.bstart[b+1]+=L.bstart[b]; }
  fprintf(stderr,"built %zu postings\n",post);
  vector<double> scale(N); for(auto&x:scale)x=1.0/(300+U(rng)*100);
  vector<double> score(N,0.0);
  double table[16]; for(int c=0;c<16;++c) table[c]= c? 1+log((double)c):0;
  const double M = 4096.0; // magic: quantum 2^-40
  vector<double> times; double check=0;
  for(int qi=0;qi<Q;++qi){
    auto& qw = queries[qi]; // sort by word id (perm)
    vector<pair<int,int>> ws; for(int r:qw) ws.push_back({perm[r],r}); sort(ws.begin(),ws.end());
    vector<double> qv(ws.size()), idf(ws.size()); for(size_t j=0;j<ws.size();++j){idf[j]=log(1/p[ws[j].second]); qv[j]=0.002*idf[j];}
    vector<size_t> next(ws.size(),0);
    if(qi==0){size_t nd=0,sp=0; for(auto&x:ws){List&L=lists[x.second]; if(L.dense)nd++; else sp+=L.ids.size();} fprintf(stderr,"words %zu dense %zu sparse postings %zu\n",ws.size(),nd,sp);}
    double t0=now();
    const size_t B=16384;
    for(size_t b=0;b<N;b+=B){ size_t e=min(N,b+B);
      if(mode==0){
        for(size_t j=0;j<ws.size();++j){ List&L=lists[ws[j].second]; double q=qv[j];
          if(L.dense){ if(half==2) continue; __m512d lo8=_mm512_set_pd(table[7]*idf[j],table[6]*idf[j],table[5]*idf[j],table[4]*idf[j],table[3]*idf[j],table[2]*idf[j],table[1]*idf[j],0);
            __m512d hi8=_mm512_set_pd(table[15]*idf[j],table[14]*idf[j],table[13]*idf[j],table[12]*idf[j],table[11]*idf[j],table[10]*idf[j],table[9]*idf[j],table[8]*idf[j]);
            __m512d qq=_mm512_set1_pd(q);
            for(size_t i=b;i<e;i+=8){ __m512i c=_mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i*)(L.dc.data()+i)));
              __m512d t=_mm512_permutex2var_pd(lo8,c,hi8); __m512d d=_mm512_mul_pd(t,_mm512_loadu_pd(&scale[i]));
              _mm512_storeu_pd(&score[i],_mm512_add_pd(_mm512_loadu_pd(&score[i]),_mm512_min_pd(d,qq)));}
          } else { if(half==1) continue; size_t i=next[j]; const uint32_t* ids=L.ids.data(); const uint8_t* cs=L.counts.data(); size_t n=L.ids.size(); double id_=idf[j];
            if(EXP==0) for(;i<n&&ids[i]<e;++i){ uint32_t id=ids[i]; double d=table[cs[i]]*id_*scale[id]; score[id]+=min(q,d);}
            else if(EXP==1) for(;i<n&&ids[i]<e;++i){ uint32_t id=ids[i]&1023; double d=table[cs[i]]*id_*scale[id]; score[id]+=min(q,d);}
            else if(EXP==2) { uint64_t acc=0; for(;i<n&&ids[i]<e;++i){ acc+=ids[i]+cs[i];} score[0]+=acc; }
            else if(EXP==4) { size_t bb=b>>14; const uint32_t s0=L.bstart[bb], s1=L.bstart[bb+1]; const uint16_t* lo=L.local.data(); double* sc=score.data()+b; const double* sl=scale.data()+b;
              for(uint32_t k=s0;k<s1;++k){ uint32_t id=lo[k]; double d=table[cs[k]]*id_*sl[id]; sc[id]+=min(q,d);} i=s1; }
            else if(EXP==5) { size_t bb=b>>14; const uint32_t s0=L.bstart[bb], s1=L.bstart[bb+1]; const uint16_t* lo=L.local.data(); double* sc=score.data()+b; const double* sl=scale.data()+b;
              uint32_t k=s0; for(;k+2<=s1;k+=2){ uint32_t id=lo[k], id2=lo[k+1]; double d=table[cs[k]]*id_*sl[id]; double d2=table[cs[k+1]]*id_*sl[id2]; sc[id]+=min(q,d); sc[id2]+=min(q,d2);}
              for(;k<s1;++k){ uint32_t id=lo[k]; double d=table[cs[k]]*id_*sl[id]; sc[id]+=min(q,d);} i=s1; }
            else if(EXP==3) { for(;i<n&&ids[i]<e;++i){ uint32_t id=ids[i]; score[id]+=min(q,table[cs[i]]*id_);} }
            next[j]=i; }
        }
      } else {
        // dense words together, 8 images at a time
        vector<int> dj; for(size_t j=0;j<ws.size();++j) if(lists[ws[j].second].dense) dj.push_back(j);
        static double tabs[512][16]; static const uint8_t* dptr[512]; static double dq[512];
        for(size_t k=0;k<dj.size();++k){int j=dj[k]; for(int c=0;c<16;++c)tabs[k][c]=table[c]*idf[j]; dptr[k]=lists[ws[j].second].dc.data(); dq[k]=qv[j];}
        const __m512d mg=_mm512_set1_pd(M);
        if(half!=2) for(size_t k0=0;k0<dj.size();k0+=GR){ size_t k1=min(dj.size(),k0+GR);
         for(size_t i=b;i<e;i+=8){ __m512d sc=_mm512_loadu_pd(&scale[i]); __m512d acc=_mm512_loadu_pd(&score[i]); __m512d acc2=_mm512_setzero_pd();
          size_t k=k0;
          for(;k+1<k1;k+=2){ __m512i c=_mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i*)(dptr[k]+i)));
            __m512i c2=_mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i*)(dptr[k+1]+i)));
            __m512d t=_mm512_permutex2var_pd(_mm512_loadu_pd(tabs[k]),c,_mm512_loadu_pd(tabs[k]+8));
            __m512d t2=_mm512_permutex2var_pd(_mm512_loadu_pd(tabs[k+1]),c2,_mm512_loadu_pd(tabs[k+1]+8));
            __m512d m=_mm512_min_pd(_mm512_mul_pd(t,sc),_mm512_set1_pd(dq[k]));
            __m512d m2=_mm512_min_pd(_mm512_mul_pd(t2,sc),_mm512_set1_pd(dq[k+1]));
            m=_mm512_sub_pd(_mm512_add_pd(m,mg),mg); m2=_mm512_sub_pd(_mm512_add_pd(m2,mg),mg);
            acc=_mm512_add_pd(acc,m); acc2=_mm512_add_pd(acc2,m2);}
          for(;k<k1;++k){ __m512i c=_mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i*)(dptr[k]+i)));
            __m512d t=_mm512_permutex2var_pd(_mm512_loadu_pd(tabs[k]),c,_mm512_loadu_pd(tabs[k]+8));
            __m512d m=_mm512_min_pd(_mm512_mul_pd(t,sc),_mm512_set1_pd(dq[k]));
            m=_mm512_sub_pd(_mm512_add_pd(m,mg),mg); acc=_mm512_add_pd(acc,m);}
          _mm512_storeu_pd(&score[i],_mm512_add_pd(acc,acc2));}}
        if(half!=1) for(size_t sb=b;sb<e;sb+=sub){ size_t se=min(e,sb+sub);
          for(size_t j=0;j<ws.size();++j){ List&L=lists[ws[j].second]; if(L.dense)continue; double q=qv[j];
            size_t i=next[j]; const uint32_t* ids=L.ids.data(); const uint8_t* cs=L.counts.data(); size_t n=L.ids.size(); double id_=idf[j];
            for(;i<n&&ids[i]<se;++i){ uint32_t id=ids[i]; double d=table[cs[i]]*id_*scale[id]; double m=min(q,d); if(mode==1) m=(m+M)-M; score[id]+=m;} next[j]=i; }
        }
      }
      for(size_t i=b;i<e;++i){check+=score[i]; score[i]=0;}
    }
    times.push_back((now()-t0)*1e3);
  }
  sort(times.begin(),times.end());
  printf("G %zu half %d mode %d sub %d: p50 %.2f ms p90 %.2f max %.2f (check %.6g)\n",GR,half,mode,sub,times[times.size()/2],times[times.size()*9/10],times.back(),check);
}
