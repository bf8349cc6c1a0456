"""Language identification with a scikit-learn classifier over letter n-grams
============================================================================

The tutorial :doc:`ngram_text_classification` built one prototype per language by hand.
Here the same texts train a :mod:`holovec.learn` classifier: an
:class:`~holovec.encoders.NGramEncoder` turns each sentence into the bundle of its letter
trigrams, and :class:`~holovec.learn.CentroidClassifier` takes the encoder itself, so
``X`` is simply a list of strings. Everything scikit-learn offers then applies: a
stratified train/test split, ``score``, a confusion matrix, ``partial_fit`` on a stream
of sentences. The texts are those of the n-gram tutorial, written inline (nothing is
downloaded): a paragraph and six more sentences in each of four languages.
"""

import re

import numpy as np
from sklearn.metrics import confusion_matrix
from sklearn.model_selection import train_test_split

from holovec import VSA
from holovec.encoders import NGramEncoder
from holovec.learn import CentroidClassifier, HDEncoder, RidgeHDClassifier

training = {
    "English": "the weather was cold and grey when we left the house in the morning. my brother "
    "carried the bags while i looked for the keys, and nobody remembered to bring any food. "
    "after an hour on the road we stopped at a small village where an old woman was selling "
    "bread, cheese and apples. she told us that the river had flooded the fields last spring "
    "and that the farmers were still waiting for help from the government. i think it would be "
    "better to wait until the weather is warmer, but my friends like to travel in winter with their dogs.",
    "French": "il faisait froid et gris quand nous sommes partis de la maison ce matin. mon frère "
    "portait les sacs pendant que je cherchais les clés, et personne n'a pensé à prendre à "
    "manger. après une heure de route nous nous sommes arrêtés dans un petit village où une "
    "vieille femme vendait du pain, du fromage et des pommes. elle nous a dit que la rivière "
    "avait inondé les champs au printemps dernier et que les paysans attendaient encore l'aide "
    "du gouvernement. je pense qu'il vaudrait mieux attendre que le temps soit plus chaud, mais mes "
    "amis aiment voyager en hiver avec leurs chiens.",
    "German": "es war kalt und grau, als wir am morgen das haus verließen. mein bruder trug die "
    "taschen, während ich die schlüssel suchte, und niemand dachte daran, etwas zu essen "
    "mitzunehmen. nach einer stunde auf der straße hielten wir in einem kleinen dorf, wo eine "
    "alte frau brot, käse und äpfel verkaufte. sie erzählte uns, dass der fluss im letzten "
    "frühling die felder überschwemmt hatte und dass die bauern immer noch auf hilfe von der "
    "regierung warteten. ich glaube, es wäre besser zu warten, bis das wetter wärmer ist, aber meine "
    "freunde reisen gern im winter mit ihren hunden.",
    "Spanish": "hacía frío y el cielo estaba gris cuando salimos de casa por la mañana. mi hermano "
    "llevaba las bolsas mientras yo buscaba las llaves, y nadie se acordó de traer comida. "
    "después de una hora en la carretera paramos en un pueblo pequeño donde una anciana vendía "
    "pan, queso y manzanas. nos contó que el río había inundado los campos la primavera pasada "
    "y que los campesinos todavía esperaban la ayuda del gobierno. creo que sería mejor esperar a que "
    "haga más calor, pero a mis amigos les gusta viajar en invierno con sus perros.",
}
test = {
    "English": [
        "i would like a cup of tea with milk, please.",
        "the children are playing in the garden behind the school.",
        "could you tell me where the nearest train station is?",
        "she has been reading that book for three weeks now.",
        "we should leave early if we want to find a good seat.",
        "the doctor said that nothing was wrong with his heart.",
    ],
    "French": [
        "je voudrais une tasse de thé avec du lait, s'il vous plaît.",
        "les enfants jouent dans le jardin derrière l'école.",
        "pourriez-vous me dire où se trouve la gare la plus proche ?",
        "elle lit ce livre depuis trois semaines maintenant.",
        "nous devrions partir tôt si nous voulons trouver une bonne place.",
        "le médecin a dit que son cœur allait très bien.",
    ],
    "German": [
        "ich hätte gern eine tasse tee mit milch, bitte.",
        "die kinder spielen im garten hinter der schule.",
        "können sie mir sagen, wo der nächste bahnhof ist?",
        "sie liest dieses buch jetzt schon seit drei wochen.",
        "wir sollten früh losfahren, wenn wir einen guten platz finden wollen.",
        "der arzt sagte, dass mit seinem herzen alles in ordnung sei.",
    ],
    "Spanish": [
        "quisiera una taza de té con leche, por favor.",
        "los niños están jugando en el jardín detrás de la escuela.",
        "¿podría decirme dónde está la estación de tren más cercana?",
        "lleva tres semanas leyendo ese libro.",
        "deberíamos salir temprano si queremos encontrar un buen sitio.",
        "el médico dijo que su corazón estaba perfectamente bien.",
    ],
}
languages = list(training)

# %%
# Sentences and a train/test split
# --------------------------------
# Each paragraph is cut into its sentences and pooled with the six others of its
# language; half of each language's sentences train, the other half test.
sentences, labels = [], []
for lang in languages:
    for sentence in re.split(r"(?<=[.!?])\s+", training[lang]) + test[lang]:
        sentences.append(sentence)
        labels.append(lang)
X_train, X_test, y_train, y_test = train_test_split(
    sentences, labels, test_size=0.5, stratify=labels, random_state=0
)
print(f"{len(X_train)} training and {len(X_test)} test sentences in {len(languages)} languages")

# %%
# A classifier that reads text
# ----------------------------
# ``MAP-I`` bundles by integer sums, so a prototype keeps how often each trigram occurs
# in its class. The classifier takes its model and dimension from the encoder.
model = VSA.create("MAP-I", dim=10_000, seed=0)
trigrams = NGramEncoder(model, n=3, seed=1)
clf = CentroidClassifier(encoder=trigrams).fit(X_train, y_train)

predicted = clf.predict(X_test)
for sentence, lang in list(zip(X_test, predicted, strict=True))[:4]:
    print(f"{sentence[:50]:50s} -> {lang}")
accuracy = clf.score(X_test, y_test)
print(f"\ntest accuracy: {accuracy:.1%} of {len(X_test)} unseen sentences")

confusion = confusion_matrix(y_test, predicted, labels=languages)
print(" " * 9 + "".join(f"{lang[:7]:>8s}" for lang in languages))
for lang, row in zip(languages, confusion, strict=True):
    print(f"{lang:9s}" + "".join(f"{count:8d}" for count in row))

# %%
# Learning from a stream
# ----------------------
# ``partial_fit`` adds sentences as they arrive (the first call names every class). The
# centroid classifier's prototypes are sums, so the stream gives the same model as one
# ``fit`` on all the sentences, whatever their order.
stream = CentroidClassifier(encoder=trigrams)
for sentence, lang in zip(X_train, y_train, strict=True):
    stream.partial_fit([sentence], [lang], classes=languages)
same = bool(np.array_equal(stream.predict(X_test), predicted))
print(
    f"streamed one sentence at a time: accuracy {stream.score(X_test, y_test):.1%}, same predictions: {same}"
)

# %%
# How much text does it need?
# ---------------------------
# Whole sentences are easy. Cut the test sentences into snippets of a few characters and
# the task gets harder: a snippet holds only a handful of trigrams. The encodings are
# computed once with :class:`~holovec.learn.HDEncoder` (which takes any holovec encoder)
# and passed to the classifiers as ``encoder="precomputed"``; the ridge read-out
# (:class:`~holovec.learn.RidgeHDClassifier`) is compared with the centroids.
encoder = HDEncoder(encoder=trigrams).fit(X_train)
H_train = encoder.transform(X_train)


def snippets(texts, labels, length):
    """Consecutive pieces of ``length`` characters of each text, with its label."""
    pieces = [
        (t[i : i + length], lab)
        for t, lab in zip(texts, labels, strict=True)
        for i in range(0, len(t) - length + 1, length)
    ]
    return [p for p, _ in pieces], [lab for _, lab in pieces]


by_length = {}
print("\nsnippet length  snippets  centroid  ridge")
for length in (5, 10, 20, 40):
    X_snip, y_snip = snippets(X_test, y_test, length)
    H_snip = encoder.transform(X_snip)
    by_length[length] = {
        name: learner.fit(H_train, y_train).score(H_snip, y_snip)
        for name, learner in [
            ("centroid", CentroidClassifier("MAP-I", 10_000, encoder="precomputed")),
            ("ridge", RidgeHDClassifier("MAP-I", 10_000, encoder="precomputed")),
        ]
    }
    scores = by_length[length]
    print(f"{length:14d}  {len(X_snip):8d}  {scores['centroid']:8.1%}  {scores['ridge']:5.1%}")

# %%
# Five letters are right about half the time (a quarter would be chance); twenty,
# about three or four words, nine times in ten. With sentences this short to learn from,
# the closed-form ridge read-out does no better than the centroids.
