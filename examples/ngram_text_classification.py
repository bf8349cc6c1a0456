"""Which language is this? Text classification by letter n-grams
===============================================================

Languages differ in which short runs of letters they use: ``"the"`` and ``"ing"`` in
English, ``"sch"`` and ``"ich"`` in German, ``"ción"`` in Spanish. An n-gram encoding
turns a text into the bundle of its letter n-grams, so texts that share n-grams get
similar vectors (Joshi, Halseth and Kanerva 2016, "Language geometry using random
indexing"). Here each language's prototype is the encoding of a short training
paragraph, and a new sentence goes to the language whose prototype is most similar.
The texts are written inline (nothing is downloaded): one paragraph per language to
learn from, and six unseen sentences per language to classify.
"""

import numpy as np

from holovec import VSA
from holovec.encoders import NGramEncoder
from holovec.retrieval import Codebook, ItemStore

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
sentences = [s for lang in languages for s in test[lang]]
truth = np.repeat(np.arange(len(languages)), [len(test[lang]) for lang in languages])

# %%
# Prototypes and classification
# -----------------------------
# The encoder binds each n-gram's letters, permuted by their place in it (so ``"abc"``
# and ``"cba"`` differ), and bundles all n-grams of a text. ``encode_batch`` encodes the
# four paragraphs at once; their vectors become a codebook that an
# :class:`~holovec.retrieval.ItemStore` searches. We use ``MAP-I``, whose bundle is the
# integer sum of bipolar vectors (not its sign, as in ``MAP``), so a prototype keeps
# how often each n-gram occurs in its paragraph.
model = VSA.create("MAP-I", dim=10_000, seed=0)
encoder = NGramEncoder(model, n=3, seed=1)
prototypes = Codebook(model, languages, encoder.encode_batch([training[lang] for lang in languages]))
store = ItemStore(model).fit(prototypes)

answers = store.query(encoder.encode_batch(sentences), k=2)
for sentence, ranked in list(zip(sentences, answers, strict=True))[::6]:
    (best, sim), (second, sim2) = ranked
    print(f"{sentence[:45]:45s} -> {best} ({sim:.3f}; then {second} {sim2:.3f})")

predicted = np.array([languages.index(ranked[0][0]) for ranked in answers])
accuracy = float(np.mean(predicted == truth))
print(f"\naccuracy with trigrams: {accuracy:.1%} of {len(sentences)} unseen sentences")

# %%
# The confusion table
# -------------------
# Rows are the true languages, columns the predicted ones.
confusion = np.zeros((len(languages), len(languages)), dtype=int)
np.add.at(confusion, (truth, predicted), 1)
print(" " * 9 + "".join(f"{lang[:7]:>8s}" for lang in languages))
for lang, row in zip(languages, confusion, strict=True):
    print(f"{lang:9s}" + "".join(f"{count:8d}" for count in row))

# %%
# How long should the n-grams be?
# -------------------------------
# Single letters carry little about a language; pairs and triples carry much more.
# Longer n-grams are more specific, but a short training text contains fewer of the
# ones a new sentence uses.
print("\n n  accuracy")
for n in (1, 2, 3, 4, 5):
    enc = NGramEncoder(model, n=n, seed=1)
    book = Codebook(model, languages, enc.encode_batch([training[lang] for lang in languages]))
    _, idx = ItemStore(model).fit(book).search(enc.encode_batch(sentences))
    print(f"{n:2d}  {np.mean(idx[:, 0] == truth):8.1%}")
