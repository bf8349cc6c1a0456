"""The 121 sets of Fernandez-Delgado et al. (2014), "Do we need hundreds of classifiers to
solve real world classification problems?", as their archive names them (one folder each)."""

# fmt: off
#: sets with a published train and test file (``<name>_train_R.dat``, ``<name>_test_R.dat``)
TRAIN_TEST = (
    "adult", "annealing", "audiology-std", "conn-bench-vowel-deterding", "hayes-roth",
    "hill-valley", "horse-colic", "image-segmentation", "monks-1", "monks-2", "monks-3", "optical",
    "pendigits", "soybean", "spect", "spectf", "statlog-landsat", "statlog-shuttle", "thyroid",
)
#: sets in one file (``<name>_R.dat``) with the collection's four folds (``conxuntos_kfold.dat``)
FOUR_FOLD = (
    "abalone", "acute-inflammation", "acute-nephritis", "arrhythmia", "balance-scale", "balloons",
    "bank", "blood", "breast-cancer", "breast-cancer-wisc", "breast-cancer-wisc-diag",
    "breast-cancer-wisc-prog", "breast-tissue", "car", "cardiotocography-10clases",
    "cardiotocography-3clases", "chess-krvk", "chess-krvkp", "congressional-voting",
    "conn-bench-sonar-mines-rocks", "connect-4", "contrac", "credit-approval", "cylinder-bands",
    "dermatology", "echocardiogram", "ecoli", "energy-y1", "energy-y2", "fertility", "flags",
    "glass", "haberman-survival", "heart-cleveland", "heart-hungarian", "heart-switzerland",
    "heart-va", "hepatitis", "ilpd-indian-liver", "ionosphere", "iris", "led-display", "lenses",
    "letter", "libras", "low-res-spect", "lung-cancer", "lymphography", "magic", "mammographic",
    "miniboone", "molec-biol-promoter", "molec-biol-splice", "mushroom", "musk-1", "musk-2",
    "nursery", "oocytes_merluccius_nucleus_4d", "oocytes_merluccius_states_2f",
    "oocytes_trisopterus_nucleus_2f", "oocytes_trisopterus_states_5b", "ozone", "page-blocks",
    "parkinsons", "pima", "pittsburg-bridges-MATERIAL", "pittsburg-bridges-REL-L",
    "pittsburg-bridges-SPAN", "pittsburg-bridges-T-OR-D", "pittsburg-bridges-TYPE", "planning",
    "plant-margin", "plant-shape", "plant-texture", "post-operative", "primary-tumor", "ringnorm",
    "seeds", "semeion", "spambase", "statlog-australian-credit", "statlog-german-credit",
    "statlog-heart", "statlog-image", "statlog-vehicle", "steel-plates", "synthetic-control",
    "teaching", "tic-tac-toe", "titanic", "trains", "twonorm", "vertebral-column-2clases",
    "vertebral-column-3clases", "wall-following", "waveform", "waveform-noise", "wine",
    "wine-quality-red", "wine-quality-white", "yeast", "zoo",
)
# fmt: on
